"""Textbook linear classifiers of PRML (Bishop 2006) §4.1-4.3, beside the machine.

Five classifiers with scikit-learn's conventions, without depending on it:

* :class:`LeastSquaresClassifier`: least squares for classification (§4.1.3,
  eq. 4.14-4.17), optional ridge term and Fisher's target coding (§4.1.5);
* :class:`FisherDiscriminant`: Fisher's linear discriminant, two classes (§4.1.4)
  and K classes (§4.1.6);
* :class:`GaussianClassifier`: the generative model with Gaussian class densities
  (§4.2.2), shared covariance (linear) or one per class (quadratic);
* :class:`Perceptron`: Rosenblatt's perceptron (§4.1.7), trained by the same core
  as the machine (:func:`mark1.machine.perceptron.train_error_correction`);
* :class:`LogisticRegression`: logistic and softmax regression by IRLS /
  Newton-Raphson (§4.3.2-4.3.4).

Conventions (as in scikit-learn): keyword-only ``__init__`` that only stores its
arguments; validation happens in ``fit(X, y)``, which returns ``self``; learned
attributes end in ``_``; ``classes_`` holds the sorted distinct labels (any
comparable labels: ints, strings); ``predict``, ``decision_function`` and
``score`` (accuracy).  For two classes ``decision_function`` returns shape
``(n_samples,)`` and a positive value means ``classes_[1]``; for K > 2 it returns
``(n_samples, K)`` and the prediction is the largest column.

They are scikit-learn estimators when scikit-learn is installed: each has
``__sklearn_tags__`` (which imports scikit-learn only when its tools ask),
``get_params``/``set_params`` and ``__sklearn_is_fitted__``, so ``clone``,
``Pipeline``, ``cross_val_score``, ``GridSearchCV`` and ``check_is_fitted``
work, and scikit-learn's ``check_estimator`` passes but for one documented check
(``tests/test_sklearn_compat.py``).  Use before ``fit`` raises
:class:`mark1.exceptions.NotFittedError` (also importable from here), a subclass of
scikit-learn's ``NotFittedError`` when it is installed.  Input that is not a
dense real 2-D array with class labels is rejected with a one-line message:
sparse matrices, complex numbers, continuous or complex targets, and values
whose sums of squares overflow float64 (``|x| > ~1e150``).

Singular covariances are normal here (binary pixel data: constant border pixels,
fewer cards than inputs).  The covariance-based models (Fisher, Gaussian) take a
``shrinkage`` parameter: a float ``s`` in [0, 1] replaces the covariance ``S`` by
the convex mix ``(1 - s) S + s (trace(S) / d) I`` (the same parametrisation as
scikit-learn's ``LinearDiscriminantAnalysis(shrinkage=s)``); the default
``"auto"`` shrinks by ``1e-3`` only a covariance whose correlation matrix is
singular or ill-conditioned, with a :class:`SingularCovarianceWarning` that says
why and names the parameter to set (details in ``_covariance``).  No fit raises
``LinAlgError`` and no fit returns NaN silently.

The modules, as scikit-learn splits its own: ``_base`` (what every classifier
shares), ``_validation`` (input checks), ``_covariance`` (scatter matrices, their
solves, shrinkage), ``_least_squares``, ``_discriminant`` (Fisher, Gaussian),
``_perceptron``, ``_logistic``.

Examples
--------
>>> from mark1.linear_model import FisherDiscriminant, LogisticRegression
>>> X = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0], [4.0, 3.0], [3.0, 4.0]]
>>> y = ["off", "off", "off", "on", "on", "on"]
>>> FisherDiscriminant().fit(X, y).predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
['off', 'on']
>>> LogisticRegression(alpha=1.0).fit(X, y).score(X, y)
1.0
"""

from mark1 import exceptions
from mark1.exceptions import (ConvergenceWarning, ScaleWarning, SeparableDataWarning,
                              SingularCovarianceWarning)
from mark1.linear_model._discriminant import FisherDiscriminant, GaussianClassifier
from mark1.linear_model._least_squares import LeastSquaresClassifier
from mark1.linear_model._logistic import LogisticRegression
from mark1.linear_model._perceptron import Perceptron

__all__ = ["LeastSquaresClassifier", "FisherDiscriminant", "GaussianClassifier", "LogisticRegression", "Perceptron",
           "NotFittedError", "SingularCovarianceWarning", "ScaleWarning", "SeparableDataWarning",
           "ConvergenceWarning"]


def __getattr__(name):
    # NotFittedError is built on first use (it subclasses scikit-learn's when that is
    # installed, without importing scikit-learn at import time)
    if name == "NotFittedError":
        return exceptions.NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
