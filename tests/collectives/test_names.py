"""Every algorithm of the catalog has a page name, its id with spaces, marked for translation."""

from app.collectives import catalog
from app.collectives.names import ALGORITHM_NAMES, algorithm_name
from app.i18n.catalog import translate


def test_every_catalog_algorithm_has_its_id_with_spaces_as_its_name():
    ids = {e["algorithm"] for e in catalog()}
    assert ids == set(ALGORITHM_NAMES)
    for algorithm in ids:
        assert algorithm_name(algorithm) == algorithm.replace("_", " ")


def test_names_are_said_in_chinese():
    assert translate("zh", algorithm_name("double_binary_tree")) == "双二叉树"
    assert translate("zh", algorithm_name("ring")) == "环形"
