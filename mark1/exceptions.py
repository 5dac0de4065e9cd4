"""Every error and warning mark1 raises, under one base each (imports nothing from mark1).

Catch :class:`Mark1Error` to catch anything mark1 refuses; each child also derives from
the built-in exception code outside mark1 would expect (``ValueError`` for a bad value,
``TypeError`` for a wrong type, ``OSError`` for a result that cannot be written), so
``except ValueError`` keeps working.

:class:`NotFittedError` is raised when an estimator (a textbook classifier, or the
machine) is used before ``fit``. When scikit-learn is installed it is also a subclass of
``sklearn.exceptions.NotFittedError``, so scikit-learn's own tools catch it; without
scikit-learn it is a ``ValueError`` and an ``AttributeError`` (the bases scikit-learn's
class has). Importing scikit-learn costs seconds, so the class is built on first access
(PEP 562 module ``__getattr__``), once; every later access returns the same class.

Examples
--------
>>> import mark1
>>> try:
...     mark1.MARK_I.with_overrides({"rack.motor_speed": -1.0})
... except mark1.Mark1Error as e:
...     print(type(e).__name__, e.key)
SpecError rack.motor_speed
"""

from __future__ import annotations

import os

__all__ = ["Mark1Error", "InputError", "InputTypeError", "SpecError", "SceneError", "RenderError", "UsageError",
           "ResultPathError", "NotFittedError", "Mark1Warning", "LMSStepWarning", "SingularCovarianceWarning",
           "ScaleWarning", "SeparableDataWarning", "ConvergenceWarning", "CliffWarning", "printable", "bounded",
           "MAX_MESSAGE"]

#: Characters of a scene error's explanation kept (a huge value quoted back is cut).
MAX_REASON = 600

#: Characters of any mark1 error's message kept: a huge value quoted back is cut in its middle.
MAX_MESSAGE = 1000


def bounded(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut in its middle to at most ``limit`` characters (a huge value quoted back).

    Parameters
    ----------
    text : str
        A message.
    limit : int
        The most characters kept (:data:`MAX_MESSAGE` unless given).

    Returns
    -------
    str
        ``text`` itself when short enough, else its head, ``" ... "`` and its last characters.

    Examples
    --------
    >>> len(bounded("x" * 10_000)), bounded("short")
    (1000, 'short')
    """
    if len(text) <= limit:
        return text
    tail = min(40, limit // 4)
    return text[:limit - tail - 5] + " ... " + text[-tail:]


def _rebuild(cls: type, args: tuple, state: dict, os_fields: tuple | None) -> BaseException:
    """An error made again from what :meth:`Mark1Error.__reduce__` kept, without calling its ``__init__``."""
    err = cls.__new__(cls, *args)
    BaseException.__init__(err, *args)          # sets args (and nothing else)
    if os_fields is not None:
        # each set only when it was: set at all, even to None, it shows in the message
        for name, value in zip(("errno", "strerror", "filename", "filename2"), os_fields):
            if value is not None:
                setattr(err, name, value)
    err.__dict__.update(state)
    return err


class Mark1Error(Exception):
    """The base of every error mark1 raises.

    Its message is at most :data:`MAX_MESSAGE` characters (a huge value quoted back is cut
    in its middle), and it crosses a process boundary whole: pickled, it comes back as the
    same class with the same message and attributes (``key``, ``path``, ``reason``, ...),
    whatever its ``__init__`` takes, so a study's worker refuses as the caller would.

    Examples
    --------
    >>> import pickle
    >>> e = pickle.loads(pickle.dumps(SpecError("rack.step", "expected a number > 0, got -1")))
    >>> type(e).__name__, e.key, str(e)
    ('SpecError', 'rack.step', 'rack.step: expected a number > 0, got -1')
    """

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (bounded(args[0]),)
        super().__init__(*args)

    def __reduce__(self):
        os_fields = ((self.errno, self.strerror, self.filename, self.filename2)
                     if isinstance(self, OSError) else None)
        return _rebuild, (type(self), self.args, dict(self.__dict__), os_fields)


class InputError(Mark1Error, ValueError):
    """An argument or an array has a value the function cannot take (NaN pixels, one
    class, a shape that does not fit the retina, ...)."""


class BudgetError(InputError):
    """An input that asks for more memory than this process may use (a chart's header, a
    deck's count, a machine's size), refused before anything is allocated, naming the key."""


class InputTypeError(Mark1Error, TypeError):
    """An argument has a type the function cannot take (a sparse matrix, text for numbers)."""


class SpecError(Mark1Error, ValueError):
    """A machine parameter is unknown or has a value outside its allowed range.

    Attributes
    ----------
    key : str
        Dotted key path of the offending parameter, e.g. ``"rack.motor_speed"``.
    """

    def __init__(self, key: str, message: str) -> None:
        message = bounded(message, MAX_REASON)          # e.g. a table of 100,000 nodes quoted back
        super().__init__(printable(f"{key}: {message}"))
        self.key = key
        self.reason = message


class SceneError(Mark1Error, ValueError):
    """A scene file, or a request for its cards, is wrong.

    The message is one line: ``<file>: <key path>: <what is expected, got what>``.

    Attributes
    ----------
    path : str or None
        The scene file.
    key : str or None
        Dotted key path, e.g. ``"stimuli.jitter.rotation"`` or
        ``"machine.overrides.rack.motor_speed"``; None for a file that cannot be read or
        parsed at all.
    reason : str
        What was expected and what was found.
    """

    def __init__(self, path: str | os.PathLike | None, key: str | None, reason: str) -> None:
        where = f"{path}: " if path is not None else ""
        reason = bounded(reason, MAX_REASON)      # e.g. a huge value quoted back
        super().__init__(printable(f"{where}{key if key is not None else 'file'}: {reason}"))
        self.path = None if path is None else str(path)
        self.key = key
        self.reason = reason


class RenderError(Mark1Error, ValueError):
    """A card cannot be drawn from these settings.

    Attributes
    ----------
    setting : str
        The setting at fault (``"font"``, ``"classes"``, ``"folder"``, ``"size"``, ...),
        so that a scene can name the key of its file.
    reason : str
        What was expected and what was found.
    """

    def __init__(self, setting: str, reason: str) -> None:
        reason = bounded(reason, MAX_REASON)
        super().__init__(printable(f"{setting}: {reason}"))
        self.setting = setting
        self.reason = reason


class UsageError(Mark1Error):
    """A problem with what the user asked for: reported in one line, exit status 2."""


class ResultPathError(Mark1Error, OSError):
    """A result cannot be written where it was asked for (a folder or a special file
    stands there). ``errno`` and ``filename`` are set as for the ``OSError`` it is."""


class Mark1Warning(UserWarning):
    """The base of every warning mark1 gives."""


class LMSStepWarning(Mark1Warning):
    """The LMS step is too large for the sums to settle."""


class SingularCovarianceWarning(Mark1Warning):
    """A covariance matrix was singular or ill-conditioned and was regularised."""


class ScaleWarning(Mark1Warning):
    """The inputs' scale makes a fit meaningless at float64 precision."""


class SeparableDataWarning(Mark1Warning):
    """The training data are linearly separable: maximum likelihood has no finite solution."""


class ConvergenceWarning(Mark1Warning):
    """An iterative fit stopped at ``max_iter`` before meeting its tolerance."""


class CliffWarning(Mark1Warning):
    """A study's setting crosses a known cliff of the machine (a ratchet step above the trainer's increment)."""


def printable(text: str) -> str:
    """``text`` on one line and encodable: line breaks shown as ``\\n``, file names that are
    not UTF-8 (``os.fsdecode``'s surrogate escapes) as ``\\xNN`` bytes.

    Examples
    --------
    >>> printable("two\\nlines")
    'two\\\\nlines'
    """
    out = []
    for ch in text:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF or ch in "\r\n\x85\u2028\u2029" or (o < 32 and ch != "\t"):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


_cache: dict[str, type] = {}


def _build_not_fitted_error() -> type:
    try:
        from sklearn.exceptions import NotFittedError as base
        bases: tuple[type, ...] = (Mark1Error, base)
    except ImportError:
        bases = (Mark1Error, ValueError, AttributeError)
    doc = ("The estimator was used before ``fit`` (a subclass of scikit-learn's "
           "``NotFittedError`` when scikit-learn is installed).")
    return type("NotFittedError", bases, {"__module__": __name__, "__doc__": doc,
                                          "__qualname__": "NotFittedError"})


def __getattr__(name: str):
    if name == "NotFittedError":
        if name not in _cache:
            _cache[name] = _build_not_fitted_error()
        return _cache[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
