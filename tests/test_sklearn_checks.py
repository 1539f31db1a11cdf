"""scikit-learn's own estimator checks on every pybnc classifier.

pybnc skips no check. scikit-learn itself skips its array-API check
(``check_array_api_input``) unless ``SCIPY_ARRAY_API=1`` is set; pybnc encodes every
input into integer codes with numpy and does not claim array-API support.
Estimators added by later work join ESTIMATORS below.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from pybnc import AODE, FAN, MANB, SSTBMATAN, TAN, TBMATAN, NaiveBayes

ESTIMATORS = [
    NaiveBayes(),
    NaiveBayes(params="mle"),
    TAN(),
    TAN(criterion="bic", params="friedman"),
    FAN(params="ms"),
    MANB(),
    AODE(),
    AODE(min_count=0, params="mle"),
    TBMATAN(),
    SSTBMATAN(),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
