"""`rules/_index_lists.number_lists`: an attribute is a list of rows only when every store of
it, in every method, is a non-empty literal list or tuple of ints (HL003 then iterates it)."""

import textwrap

import libcst as cst

from hybridlint.rules._index_lists import number_lists


def lists_of(body: str) -> set:
    module = cst.parse_module(textwrap.dedent(body))
    klass = module.body[0]
    assert isinstance(klass, cst.ClassDef)
    methods = [m for m in klass.body.body if isinstance(m, cst.FunctionDef)]
    return number_lists(methods)


def test_only_literal_stores_of_ints_make_a_list_of_rows():
    found = lists_of(
        """
        class Net:
            def __init__(self, rows, flag):
                self.a = [0, 2]
                self.b = (1, -1)
                self.c = [0, 2]
                self.d = [0.5, 1]
                self.e = []
                self.f = rows
                self.g = [0, 2]
                self.h, self.i = [0], [1]
                self.j = [0, 2]
                self.k: list = [1, 2]
                if flag:
                    self.c = 1

            def grow(self):
                self.g += [3]
                setattr(self, "j", 4)
        """
    )
    assert found == {"a", "b", "k"}
