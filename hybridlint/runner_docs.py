"""`hybridlint rule CODE` pages for the codes the runner reports itself (HL900-HL903).

The rules' pages live beside their code (`rules/*.py`, `explanation`); these codes have no
rule module, and their page was their one-line message twice (blind round 14 read
`hybridlint rule HL903 --details` for the examples syntax and found nothing). Same beats as a
rule's page: what, why, example, fix.
"""

from __future__ import annotations

from typing import Dict

EXPLANATIONS: Dict[str, str] = {
    "HL900": """\
## What it does
Reports a file Python itself cannot parse (a syntax error, a truncated file, null bytes, code
nested deeper than CPython's parser allows).

## Why it matters
Every file is checked, hybrid code or not, so that a broken file never passes a gate; nothing
else is reported for it, and `--fix` never writes one.

## Fix
Make the file parse (`python -m py_compile FILE` names the same line).
""",
    "HL901": """\
## What it does
Reports a file that is not valid text in its declared encoding (a PEP 263 coding line, else
UTF-8 with or without a BOM).

## Fix
Save the file in its declared encoding, or declare the one it is written in.
""",
    "HL902": """\
## What it does
Reports a path that cannot be read (missing, a permission error, a directory named as a file).
""",
    "HL903": """\
## What it does
With `--fix --verify` (or `--diff --verify`), reports a block that has examples and still
fails with them after the proven fixes: it does not hybridize, or its hybridized outputs
differ from its eager ones. The finding is at the line that fails and says why (the error,
the operator), as the hybridized run saw it.

## Why it matters
A fix is proven only when the block it belongs to passes: HL903 says the block does not work
yet, and where to look, instead of a count of fixes.

## Example
```toml
[tool.hybridlint.examples]
"models/net.py::Net" = { inputs = [[2, 3, 32, 32]] }
"models/seq.py::Encoder" = [
  { kwargs = { hidden = 16 }, inputs = [{ shape = [4, 10], dtype = "int32", high = 100 }] },
  { kwargs = { hidden = 32 }, inputs = [[8, 10], { none = true }] },
]
```
An example calls the block once, positionally: `[2, 3]` is a float32 array of that shape,
`{ shape = [...], dtype = "...", low = 0, high = 10 }` one of another dtype or range,
`{ value = [[1.0, 2.0]] }` exactly that array, `{ none = true }` None, `{ int = 12 }` a Python
number; `kwargs` are the constructor's (a class is `{ class = "nn.BatchNorm" }`). The README's
*Configuration* section has the whole format.

## Fix
Fix the line it names by hand (`hybridlint rule` of the finding on that line says how), or
accept that the block stays eager: HL903 is exit 1 until then. An example the original block
already fails eagerly is reported as one that cannot run: correct the example.
""",
}
