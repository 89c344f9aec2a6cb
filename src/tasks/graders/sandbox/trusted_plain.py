"""Tagged plain JSON of trusted values: the test's own arguments (the checker) and expected values
(the splitter). Both run outside the candidate's sandbox and encode values the task's tests made,
never the candidate's; the candidate's side has its own, stricter encoder (sandbox_worker.py),
which never calls a method of the value's class.
"""

DEPTH = 100


def encode_trusted(value, depth=0):
    """Tagged plain JSON of a value of an exact builtin type; TypeError for anything else."""
    t = type(value)
    if depth > DEPTH:
        raise TypeError('value nested too deeply')
    if value is None:
        return ['none']
    if t is bool:
        return ['bool', value]
    if t is int:
        return ['int', repr(value)]
    if t is float:
        return ['float', repr(value)]
    if t is str:
        return ['str', value]
    if t is bytes:
        return ['bytes', value.hex()]
    if t is complex:
        return ['complex', repr(value.real), repr(value.imag)]
    if t is list or t is tuple:
        return ['list' if t is list else 'tuple', [encode_trusted(v, depth + 1) for v in value]]
    if t is set or t is frozenset:
        return ['set', [encode_trusted(v, depth + 1) for v in value]]
    if t is dict:
        return ['dict', [[encode_trusted(k, depth + 1), encode_trusted(v, depth + 1)] for k, v in value.items()]]
    raise TypeError(f'a {t.__name__} is not plain data')
