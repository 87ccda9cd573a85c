"""vision.stats gives numpy's medians and percentiles to the last bit (the reader's readings
must not move when it swaps them in), at a fraction of the cost."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vision.stats import median, percentile

FLOATS = st.sampled_from([np.float32, np.float64])
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(st.data(), FLOATS, SHAPES)
def test_median_is_numpys(data: st.DataObject, dtype: type, shape: tuple[int, ...]) -> None:
    a = data.draw(hnp.arrays(dtype, shape, elements=st.floats(
        -1e3, 1e3, width=32, allow_nan=False) | st.just(float("nan")) | st.just(7.0)))
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    assert _same(np.median(a, axis=axis), median(a, axis=axis))


@settings(max_examples=100, deadline=None)
@given(st.data(), SHAPES)
def test_median_of_integers_is_numpys(data: st.DataObject, shape: tuple[int, ...]) -> None:
    a = data.draw(hnp.arrays(np.uint8, shape))
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    assert _same(np.median(a, axis=axis), median(a, axis=axis))


@settings(max_examples=300, deadline=None)
@given(st.data(), FLOATS, SHAPES)
def test_percentile_is_numpys(data: st.DataObject, dtype: type, shape: tuple[int, ...]) -> None:
    a = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-1e3, 1e3, width=32)))
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    q = data.draw(st.floats(0, 100) | st.sampled_from([2.0, 25.0, 90.0, 98.0])
                  | st.lists(st.floats(0, 100), min_size=1, max_size=3))
    assert _same(np.percentile(a, q, axis=axis), percentile(a, q, axis=axis))


def test_an_empty_slice_is_numpys_nan() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(median(np.zeros(0)))
