# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Recorded joint signals made fit for identification: a uniform time base, zero-phase filtering.

Recordings of real arms come with jittered or irregular time stamps, dropped
samples, noise and quantised torques. ``uniform_samples`` resamples onto a
uniform grid (linear interpolation at the median sample period);
``lowpass`` is a Butterworth filter run forwards and backwards
(scipy.signal.sosfiltfilt: no phase lag, squared magnitude response);
``derivatives`` differentiates the filtered positions by central differences
(numpy.gradient, second order). Filtering the torques and the regressor
columns with the same filter ("parallel filtering", Gautier 1997, "Dynamic
identification of robots with power model", ICRA) keeps the two sides of
tau = Y theta consistent.
"""

from typing import Optional

import numpy as np
import scipy.signal

DEFAULT_CUTOFF = 5.0          # Hz; capped at 0.4 times the Nyquist frequency
FILTER_ORDER = 4              # Butterworth order (filtfilt doubles the attenuation, 8 in dB)
IRREGULAR = 1e-3              # relative spread of sample periods above which data is resampled


def as_signal(value, name: str, rows: Optional[int] = None, columns: Optional[int] = None
              ) -> np.ndarray:
    """Return ``value`` as a float (N, columns) array, or raise ValueError naming it."""
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f'{name}: expected an array of numbers ({error})') from None
    if array.ndim != 2 or (columns is not None and array.shape[1] != columns) or \
            (rows is not None and array.shape[0] != rows):
        expected = f'({rows if rows is not None else "N"}, {columns})'
        raise ValueError(f'{name}: expected shape {expected} (samples x joints), got '
                         f'{array.shape}')
    return array


def uniform_samples(t: np.ndarray, signals: list) -> tuple:
    """
    Return (t_uniform, signals_uniform, period, dropped) on a uniform time base.

    Samples are sorted by time; repeated time stamps and rows holding NaN or
    Inf in any signal are dropped (``dropped`` counts them). If the sample
    periods spread by more than IRREGULAR of their median, every signal is
    linearly interpolated onto t0, t0 + T, ... with T the median period;
    otherwise the samples are kept as they are.
    """
    t = np.asarray(t, dtype=float).ravel()
    if t.shape[0] != signals[0].shape[0]:
        raise ValueError(f't: expected {signals[0].shape[0]} time stamps (one per sample), '
                         f'got {t.shape[0]}')
    finite = np.isfinite(t)
    for signal in signals:
        finite &= np.all(np.isfinite(signal), axis=1)
    order = np.argsort(t[finite], kind='stable')
    t_kept = t[finite][order]
    kept = [s[finite][order] for s in signals]
    unique = np.concatenate([[True], np.diff(t_kept) > 0.0])
    t_kept, kept = t_kept[unique], [s[unique] for s in kept]
    dropped = t.shape[0] - t_kept.shape[0]
    if t_kept.shape[0] < 16:
        raise ValueError(f'only {t_kept.shape[0]} usable samples (after dropping {dropped} '
                         'with NaN, Inf or repeated time stamps); identification needs many '
                         'more, typically thousands')
    steps = np.diff(t_kept)
    period = float(np.median(steps))
    if np.max(np.abs(steps - period)) <= IRREGULAR * period:
        return t_kept, kept, period, dropped
    count = int(np.floor((t_kept[-1] - t_kept[0]) / period)) + 1
    grid = t_kept[0] + period * np.arange(count)
    resampled = [np.column_stack([np.interp(grid, t_kept, s[:, j]) for j in range(s.shape[1])])
                 for s in kept]
    return grid, resampled, period, dropped


def lowpass(signal: np.ndarray, period: float, cutoff: float) -> np.ndarray:
    """
    Return ``signal`` (N, ...) low-pass filtered along axis 0, zero phase (sosfiltfilt).

    Each end is extended by its odd reflection over two cut-off periods
    (``padlen``; at most N - 1 samples) before filtering, so that the
    filter's start-up transient dies out before the data: scipy's default
    pad of 3 x (2 x sections + 1) samples is 15 ms at 1 kHz, and a recording
    that ends in motion then had acceleration errors of 4 rad/s^2 reaching
    0.8 s into the data (a 1 kHz ``simulate --follow`` run cut by
    ``identify --holdout``), against 0.18 rad/s^2 with this pad.
    """
    sos = scipy.signal.butter(FILTER_ORDER, cutoff, fs=1.0 / period, output='sos')
    padlen = min(int(np.ceil(2.0 / (cutoff * period))), signal.shape[0] - 1)
    return scipy.signal.sosfiltfilt(sos, signal, axis=0, padlen=padlen)


def cutoff_frequency(period: float, cutoff: Optional[float]) -> float:
    """Return the cut-off (Hz): ``cutoff``, or DEFAULT_CUTOFF, capped at 0.4 x Nyquist."""
    nyquist = 0.5 / period
    if cutoff is None:
        return min(DEFAULT_CUTOFF, 0.4 * nyquist)
    if not (np.isfinite(cutoff) and 0.0 < cutoff < nyquist):
        raise ValueError(f'cutoff: expected a frequency in (0, {nyquist:g}) Hz (the Nyquist '
                         f'frequency of the {1.0 / period:g} Hz samples), got {cutoff!r}')
    return float(cutoff)


def derivatives(q: np.ndarray, period: float) -> tuple:
    """Return (qd, qdd) of uniformly sampled q (N, dof) by second-order central differences."""
    qd = np.gradient(q, period, axis=0, edge_order=2)
    return qd, np.gradient(qd, period, axis=0, edge_order=2)
