"""CITATION.cff: valid Citation File Format 1.2.0, and the package's version.

The checks are those of the CFF 1.2.0 schema that apply to this file: the required keys and their
types, the allowed ``type`` values, an author as an entity (``name``) or a person
(``family-names``/``given-names``), and a version equal to ``vitexplain.__version__``.
(``cffconvert``, the reference validator, pins ``jsonschema<4``, which Jupyter cannot use.)
"""

from pathlib import Path

import yaml

import vitexplain

CITATION = Path(__file__).resolve().parent.parent / "CITATION.cff"
KEYS = {
    "cff-version", "message", "type", "title", "abstract", "authors", "version", "license",
    "keywords", "date-released", "doi", "url", "repository-code", "references",
}  # fmt: skip


def test_citation_file_is_valid_cff_1_2_0():
    cff = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert set(cff) <= KEYS, set(cff) - KEYS
    assert {"cff-version", "message", "title", "authors"} <= set(cff)
    assert isinstance(cff["message"], str) and cff["message"]
    assert isinstance(cff["title"], str) and cff["title"]
    assert cff.get("type", "software") in {"software", "dataset"}
    assert isinstance(cff["authors"], list) and cff["authors"]
    for author in cff["authors"]:
        assert isinstance(author.get("name"), str) or isinstance(author.get("family-names"), str)
    assert all(isinstance(k, str) for k in cff.get("keywords", []))


def test_citation_version_is_the_package_version():
    cff = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    assert str(cff["version"]) == vitexplain.__version__
