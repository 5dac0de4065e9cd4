"""The textbook linear classifiers of Bishop's *PRML* §4.1–4.3, as scikit-learn estimators."""

from mark1 import exceptions
from mark1.exceptions import (ConvergenceWarning, ScaleWarning, SeparableDataWarning,
                              SingularCovarianceWarning)
from mark1.linear_model._baselines import (FisherDiscriminant, GaussianClassifier, LeastSquaresClassifier,
                                           LogisticRegression, Perceptron)

__all__ = ["LeastSquaresClassifier", "FisherDiscriminant", "GaussianClassifier", "LogisticRegression", "Perceptron",
           "NotFittedError", "SingularCovarianceWarning", "ScaleWarning", "SeparableDataWarning",
           "ConvergenceWarning"]


def __getattr__(name):
    # NotFittedError is built on first use (it subclasses scikit-learn's when that is
    # installed, without importing scikit-learn at import time)
    if name == "NotFittedError":
        return exceptions.NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
