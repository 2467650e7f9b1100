"""scripts/api_coverage.py: documented names are sorted into implemented / rejected / missing,
and docs/pyasc.md carries the table the script prints now (it is generated, never edited)."""
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cov():
    spec = importlib.util.spec_from_file_location("api_coverage", os.path.join(ROOT, "scripts", "api_coverage.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_list_has_source_and_every_area():
    cov = _cov()
    source, names = cov.read_list()
    assert "hicann/pyasc commit" in source and len(source.split("commit ")[1].split(",")[0]) == 40
    assert len(names) == len(set(names)) > 300
    assert {cov.area_of(n) for n in names} == set(cov.AREAS)


def test_status_of_each_kind():
    cov = _cov()
    assert cov.status("asc.language.basic.add") == ("implemented", None)           # as asc.add
    assert cov.status("asc.language.fwk.TQue.enque") == ("implemented", None)      # a method
    st, why = cov.status("asc.language.basic.printf")
    assert st in ("implemented", "rejected")
    if st == "rejected":
        assert why                                                               # says why
    assert cov.status("asc.language.basic.no_such_call") == ("missing", None)
    assert cov.status("asc.language.core.LocalTensor.no_such_method") == ("missing", None)


def test_docs_table_is_current():
    cov = _cov()
    source, names = cov.read_list()
    md = cov.markdown(cov.survey(names), source)
    with open(cov.DOC, encoding="utf-8") as f:
        doc = f.read()
    assert md in doc, "docs/pyasc.md is stale: run scripts/api_coverage.py --update-docs"
