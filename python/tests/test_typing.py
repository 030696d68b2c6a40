"""What help() and type checkers see: text signatures on every function and
method, docstrings on __enter__/__exit__, a help(tread) that stands on its
own, the stubs (tread/_tread.pyi, py.typed) matching the module as built."""
import ast
import inspect
import os
import pydoc

import pytest

import tread
from tread import _tread

PKG = os.path.dirname(tread.__file__)


def test_signatures_of_the_functions():
    for f in (tread.open, tread.stats, _tread._frame, _tread._event, _tread._live_parsers):
        inspect.signature(f)  # raised ValueError before
    sig = inspect.signature(tread.open)
    assert list(sig.parameters)[:2] == ["source", "format"]
    assert sig.parameters["source"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert sig.parameters["kinds"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["chunk_size"].default == 262144
    assert inspect.signature(tread.stats).parameters["top"].default == 10


@pytest.mark.parametrize("fn", ["open", "stats"])
def test_signature_lists_exactly_the_keywords(fn, tmp_path):
    """Every keyword the signature names is accepted (with its default),
    and a keyword it does not name is refused: the signature is the truth."""
    from conftest import NODE_SAMPLE
    f = getattr(tread, fn)
    for name, p in inspect.signature(f).parameters.items():
        if p.kind is inspect.Parameter.KEYWORD_ONLY or name == "format":
            r = f(NODE_SAMPLE, **{name: p.default})
            if fn == "open":
                r.close()
    with pytest.raises(TypeError):
        f(NODE_SAMPLE, no_such_keyword=1)


def test_method_signatures_and_docs():
    for m in (tread.Reader.close, tread.Reader.stats, tread.Reader.__enter__,
              tread.Reader.__exit__, tread.Event.to_dict):
        assert m.__doc__ and m.__doc__.strip(), m
        inspect.signature(m)
    assert "closes it at" in tread.Reader.__enter__.__doc__
    assert list(inspect.signature(tread.Reader.__exit__).parameters) == \
        ["self", "exc_type", "exc_value", "traceback"]


def test_help_stands_on_its_own():
    text = pydoc.render_doc(tread, renderer=pydoc.plaintext)
    for words in ("tread.open(", "kinds", "name", "start", "1.5s", "tread.Error", ".offset",
                  "Perfetto", "FXT", "ftrace", "systrace", "doc/python.md"):
        assert words in text, words
    assert "python.md" in _tread.__doc__
    assert os.path.isabs(_tread.__doc__.split("installed as ")[1].rstrip("."))


def test_typing_files_are_in_the_package():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))
    assert os.path.isfile(os.path.join(PKG, "_tread.pyi"))


def _stub():
    return ast.parse(open(os.path.join(PKG, "_tread.pyi")).read())


def test_stub_names_the_module_s_names():
    tree = _stub()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    public = {n for n in dir(_tread) if not n.startswith("__") or n == "__version__"}
    public -= {"__doc__", "__file__", "__loader__", "__name__", "__package__", "__spec__"}
    assert public - names == set(), "in the module, not in _tread.pyi"
    assert {n for n in names if not n.startswith("_Source") and n[0] != "_" or
            n in ("_frame", "_event", "_live_parsers", "_Buffer")} - public == set(), \
        "in _tread.pyi, not in the module"


def _params(sig_or_args):
    return [(p.name, p.kind) for p in sig_or_args]


def _stub_params(fn):
    a = fn.args
    out = [(x.arg, inspect.Parameter.POSITIONAL_ONLY) for x in a.posonlyargs]
    out += [(x.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for x in a.args]
    if a.vararg:
        out.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    out += [(x.arg, inspect.Parameter.KEYWORD_ONLY) for x in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return out


def test_stub_signatures_match_the_module():
    funcs = {n.name: n for n in _stub().body if isinstance(n, ast.FunctionDef)}
    for name in ("open", "stats", "_frame", "_event", "_live_parsers"):
        sig = inspect.signature(getattr(_tread, name))
        assert _stub_params(funcs[name]) == _params(sig.parameters.values()), name


def test_stub_event_attributes_match():
    cls = next(n for n in _stub().body if isinstance(n, ast.ClassDef) and n.name == "Event")
    attrs = {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}
    real = {n for n, v in vars(tread.Event).items() if inspect.isgetsetdescriptor(v)}
    assert attrs == real
