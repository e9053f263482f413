"""The pinned public MXNet model code the real-world harness measures hybridlint on.

Each entry is a release on the package index, pinned by version and by the sha256 of the file
pip downloads, so every labelled finding (``labels/*.tsv``) points at the same line forever.
Only the ``.py`` files are extracted; no third-party code is committed to this repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from typing import Dict, List, Sequence


@dataclass(frozen=True)
class Package:
    name: str  # the label files' package name, e.g. "gluoncv-0.10.5"
    requirement: str  # what pip downloads, e.g. "gluoncv==0.10.5"
    filename: str  # the file pip saves
    sha256: str
    # pins for the build environment pip makes to read an sdist's metadata (PIP_CONSTRAINT),
    # e.g. "setuptools<60" for an sdist whose setup.py newer setuptools rejects
    build_constraints: str = ""


PACKAGES: List[Package] = [
    Package(
        "gluoncv-0.10.5",
        "gluoncv==0.10.5",
        "gluoncv-0.10.5-py2.py3-none-any.whl",
        "5f2f692801aad14b1f66dfcbcf6137e3a5db413846e2fae871da7c697a97b69d",
    ),
    Package(
        "gluoncv2-0.0.64",
        "gluoncv2==0.0.64",
        "gluoncv2-0.0.64-py2.py3-none-any.whl",
        "2b68fc03be29710d569f7d5628afbb34531b3248d456f2156f219d50a0ea92ed",
    ),
    Package(
        "gluonnlp-0.10.0",
        "gluonnlp==0.10.0",
        "gluonnlp-0.10.0.tar.gz",
        "ae34825031f5228f3fced26339b56550cf8e360b40906aa44fb705439ff426e0",
    ),
    # The last gluonts releases still ship the MXNet models as gluonts.mx.
    Package(
        "gluonts-0.14.4",
        "gluonts==0.14.4",
        "gluonts-0.14.4-py3-none-any.whl",
        "ef8601e59ebf36833c2f4131e2e2363acb2bc045442513dedbfa6333f0ba12a0",
    ),
    Package(
        "mxnet-1.9.1",
        "mxnet==1.9.1",
        "mxnet-1.9.1-py3-none-manylinux2014_x86_64.whl",
        "65d5dac162c87a14d138d888b54494d515036d9047ae804ff51f770bd02197a6",
    ),
    # Added for issue 21: packages nobody here had labelled; their first figures (frozen
    # linter at 8dccea5, before any rule change for them) are in README.md.
    Package(
        "sockeye-2.3.17",
        "sockeye==2.3.17",
        "sockeye-2.3.17-py3-none-any.whl",
        "f948ad39f5ec7110925298521414639bed44b3612466f5ec5a9ff2dcdee2f6ad",
    ),
    Package(
        "gluonfr-1.0.2",
        "gluonfr==1.0.2",
        "gluonfr-1.0.2.tar.gz",
        "6223c6949964b9025da9d4203b0c71dd3e1c3e7000e244704c201384c7731120",
    ),
    Package(
        "gluonar-0.1.0",
        "gluonar==0.1.0",
        "gluonar-0.1.0.tar.gz",
        "0e38622857699094e231ecc9a680d1e20175d98ec63cfb3e63b02158a812a194",
    ),
    Package(
        "deeprenewal-0.3.3",
        "deeprenewal==0.3.3",
        "deeprenewal-0.3.3.tar.gz",
        "0865c4a521533178b625c4cab3c5e868c7f229f12785f8ec0130f65cc6b77bad",
    ),
    # Added in round 2 (first figures in README.md): the DeepNumpy GluonNLP (F.np / F.npx
    # code, 47 hybrid_forward bodies) that autogluon shipped; a rewrite, not gluonnlp 0.10.0.
    Package(
        "autogluon-contrib-nlp-0.0.1b20220208",
        "autogluon-contrib-nlp==0.0.1b20220208",
        "autogluon_contrib_nlp-0.0.1b20220208-py3-none-any.whl",
        "ee7012b1360ddb597943dcbfeda12c6b228ca2595581a0a49017c2387925b3f3",
    ),
    # Added in round 3 (first figures in README.md): knowledge-tracing research code and the
    # layer gallery it builds on; the e2e harness's fresh2 cases pin the same files, but no
    # rule was changed for them.
    Package(
        "XKT-0.0.2",
        "XKT==0.0.2",
        "XKT-0.0.2-py3-none-any.whl",
        "aab9fde2f586cfe81d26e58d180a5e96e5511effbac44548516aa2ddd6271e2d",
    ),
    Package(
        "longling-1.3.0",
        "longling==1.3.0",
        "longling-1.3.0-py3-none-any.whl",
        "b1163a18a57dcb2d2b5fa27c3bed60dbdc378835a49519c9ec8697f29ec13f9c",
    ),
    # Added in round 5 (first figures in README.md): older releases whose gluon code differs
    # from the pinned ones: MXNet 1.5.1 (gluon/contrib before 1.9.1's rewrites; the e2e
    # harness's fresh4 cases pin the same wheel for a few of its losses) and GluonNLP 0.4.1.
    Package(
        "mxnet-1.5.1",
        "mxnet==1.5.1",
        "mxnet-1.5.1-py2.py3-none-manylinux1_x86_64.whl",
        "8ec9f265766fbbdff2e451d2a78af4c80d31777039dc9f6c37ec71a8f5ba8cd3",
    ),
    Package(
        "gluonnlp-0.4.1",
        "gluonnlp==0.4.1",
        "gluonnlp-0.4.1.tar.gz",
        "0f25528f16f7164b98500a4d1a130fa660e6f51e55a94b7b28f3dfa02191b376",
    ),
    # Added in round 5 too: GluonTS 0.5.2, the release before the MXNet models moved to
    # gluonts.mx (29 of its 71 hybrid_forward bodies differ from 0.14.4's; the e2e harness
    # looked at it for fresh2 and took no case from it).
    Package(
        "gluonts-0.5.2",
        "gluonts==0.5.2",
        "gluonts-0.5.2-py3-none-any.whl",
        "530d82697f10fd8cba0daa7b575d329248c27af4a65da6a5d98944216c6baef6",
    ),
    # Added in round 6 (first figures in README.md): Sockeye 1.18.106, the last 1.x release
    # (symbol-API models with 23 gluon hybrid_forward bodies: transformer layers, attention,
    # the beam search's top-k / pruning / update blocks), none of them the same as 2.3.17's.
    Package(
        "sockeye-1.18.106",
        "sockeye==1.18.106",
        "sockeye-1.18.106-py3-none-any.whl",
        "1518a93b96486121fb9d80150914e3a44f6aff72fd4e564411d7fb5b0079b9ad",
    ),
    # Added in round 6 too: Sockeye 2.1.7, the first 2.x release on the index (Gluon models;
    # 20 of its 36 hybrid_forward bodies differ from 2.3.17's: the transformer layers and
    # attention, the decoder, the embedding, the losses, the beam search's blocks).
    Package(
        "sockeye-2.1.7",
        "sockeye==2.1.7",
        "sockeye-2.1.7-py3-none-any.whl",
        "8293c733d96649a4015ddf385581bdf292f76c784c2e89caa0d50fcbf04c3e91",
    ),
    Package(
        "cnstd-0.1.1",
        "cnstd==0.1.1",
        "cnstd-0.1.1-py3-none-any.whl",
        "25f61033e094e3b0e9744b67ec8b4853a73441eecd4c7b688b7e889b3046d48c",
    ),
    Package(
        "accel-brain-base-1.1.0",
        "accel-brain-base==1.1.0",
        "accel-brain-base-1.1.0.tar.gz",
        "6839959e5f3120b688ba8fe9a52ee526914354e95cac57f74716f65ac8225ac8",
    ),
    Package(
        "cangjie-0.0.2",
        "cangjie==0.0.2",
        "CangJie-0.0.2-py3-none-any.whl",
        "e5ccfd1a6ac624c2e802f85452304a9582e06ae4bca58610f4e3adb77cae278f",
    ),
    # Round 9: packages no set or round had read. autogluon 0.0.15 is the last release with
    # the MXNet searchers, model zoo and text/tabular networks (yanked only for Python 3.10+).
    Package(
        "autogluon-0.0.15",
        "autogluon==0.0.15",
        "autogluon-0.0.15-py3-none-any.whl",
        "d08bcf5fb5844e85e656267b2d2eec625fca0492fe509da44960a6321e1f957e",
    ),
    Package(
        "cnocr-1.2.2",
        "cnocr==1.2.2",
        "cnocr-1.2.2-py3-none-any.whl",
        "ddc4b35d0039a514855b7da4bb7a149623c7369d2afccf03173b03e28c313fe7",
    ),
    Package(
        "mxfusion-0.3.1",
        "mxfusion==0.3.1",
        "MXFusion-0.3.1.tar.gz",
        "e3dd40ee457089bc668ea11599d40fa255b8cc561e6482d1e1daba70d5a63065",
    ),
]

DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "hybridlint-realworld")


class FetchError(RuntimeError):
    """A download failed or did not match its pinned hash."""


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(package: Package, into: str) -> str:
    path = os.path.join(into, package.filename)
    if not os.path.exists(path):
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--dest",
            into,
            package.requirement,
        ]
        if package.filename.endswith(".tar.gz"):
            command[5:5] = ["--no-binary", ":all:"]
        else:
            command[5:5] = ["--only-binary", ":all:", "--platform", "manylinux2014_x86_64"]
        with tempfile.TemporaryDirectory() as scratch:
            env = dict(os.environ)
            if package.build_constraints:
                constraints = os.path.join(scratch, "constraints.txt")
                with open(constraints, "w", encoding="utf-8") as handle:
                    handle.write(package.build_constraints + "\n")
                env["PIP_CONSTRAINT"] = constraints
            result = subprocess.run(command, capture_output=True, text=True, env=env)
        if result.returncode != 0 or not os.path.exists(path):
            raise FetchError(f"pip could not download {package.requirement}:\n{result.stderr}")
    found = _sha256(path)
    if found != package.sha256:
        raise FetchError(f"{path}: sha256 {found} is not the pinned {package.sha256}")
    return path


def _extract_python(archive: str, into: str) -> None:
    """Extract the .py files of a wheel or sdist into ``into`` (sdists lose their top folder)."""
    tmp = into + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    if archive.endswith(".whl"):
        with zipfile.ZipFile(archive) as wheel:
            for member in wheel.namelist():
                if member.endswith(".py"):
                    wheel.extract(member, tmp)
    else:
        with tarfile.open(archive) as sdist:
            for member in sdist.getmembers():
                if member.isfile() and member.name.endswith(".py"):
                    parts = member.name.split("/", 1)
                    if len(parts) == 2 and ".." not in parts[1].split("/"):
                        member.name = parts[1]
                        sdist.extract(member, tmp)
    os.replace(tmp, into)


def fetch(cache: str = DEFAULT_CACHE, packages: Sequence[Package] = ()) -> Dict[str, str]:
    """Download (once) and extract every pinned package (``PACKAGES`` and ``packages``);
    return name -> source root."""
    downloads = os.path.join(cache, "downloads")
    sources = os.path.join(cache, "src")
    os.makedirs(downloads, exist_ok=True)
    os.makedirs(sources, exist_ok=True)
    roots = {}
    for package in [*PACKAGES, *packages]:
        root = os.path.join(sources, package.name)
        if not os.path.isdir(root):
            _extract_python(_download(package, downloads), root)
        roots[package.name] = root
    return roots


if __name__ == "__main__":
    for name, root in fetch().items():
        print(f"{name}\t{root}")
