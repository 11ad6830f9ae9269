#!/usr/bin/env python3
"""Derives the polynomial constants of isa/mathfn_explog.h (documented in isa/README.md section 5).

Weighted Remez exchange in mpmath (50 digits): minimises max |w(x) * (P(x) - g(x))| over [a, b] for P of
degree n, then rounds each coefficient to the nearest fp32 and prints the C++ constant lines.
  exp: g(r) = (e^r - 1 - r) / r^2, w(r) = r^2 / e^r   (relative error of e^r = 1 + r + r^2 P(r)),
       |r| <= ln2/2 + 2e-4 (k = round(x log2e) is computed from a rounded product, so |r| can slightly
       exceed ln2/2), degree 4.
  ln:  g(f) = (log1p(f) - f) / f^2, w(f) = f^2 / |log1p(f)|   (relative error of log1p(f) = f + f^2 Q(f)),
       f in [sqrt(1/2) - 1, sqrt(2) - 1], degree 8.
Usage: python3 tools/bench/mathfn_remez.py   (needs mpmath; ~10 s)
"""
import struct

import mpmath as mp

mp.mp.dps = 50


def remez(g, w, a, b, n, iterations=30, grid_points=4000):
    count = n + 2
    xs = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (count - 1 - i) / (count - 1)) for i in range(count)]
    xs = [x if abs(x) > mp.mpf('1e-6') else mp.mpf('1e-3') for x in xs]  # w vanishes at 0
    max_error = None
    for _ in range(iterations):
        # Solve P(x_i) + (-1)^i E / w(x_i) = g(x_i) for the coefficients and the levelled error E.
        A = mp.matrix(count, count)
        rhs = mp.matrix(count, 1)
        for i, x in enumerate(xs):
            for j in range(n + 1):
                A[i, j] = x ** j
            A[i, n + 1] = (-1) ** i / w(x)
            rhs[i] = g(x)
        sol = mp.lu_solve(A, rhs)
        coeffs = [sol[j] for j in range(n + 1)]

        def err(x):
            return w(x) * (mp.polyval(coeffs[::-1], x) - g(x))

        grid = [a + (b - a) * k / grid_points for k in range(grid_points + 1)]
        vals = [err(x) for x in grid]
        extrema = [0] + [k for k in range(1, grid_points)
                         if vals[k] != 0 and (vals[k] - vals[k - 1]) * (vals[k + 1] - vals[k]) <= 0] + [grid_points]
        alternating = []
        for k in extrema:
            point = (grid[k], vals[k])
            if alternating and mp.sign(alternating[-1][1]) == mp.sign(point[1]):
                if abs(point[1]) > abs(alternating[-1][1]):
                    alternating[-1] = point
            else:
                alternating.append(point)
        while len(alternating) > count:
            alternating.pop(0 if abs(alternating[0][1]) < abs(alternating[-1][1]) else -1)
        if len(alternating) < count:
            raise RuntimeError("Remez: too few alternation points")
        xs = [p[0] for p in alternating]
        max_error = max(abs(v) for v in vals)
    return coeffs, max_error


def emit(prefix, coeffs):
    for j, c in enumerate(coeffs):
        pattern = struct.unpack('<I', struct.pack('<f', float(c)))[0]
        value = struct.unpack('<f', struct.pack('<I', pattern))[0]
        print("constexpr float k%s%d = from_bits(0x%08xu);  // %.9g" % (prefix, j, pattern, value))


def main():
    half_ln2 = mp.log(2) / 2 + mp.mpf('0.0002')
    coeffs, e = remez(lambda r: (mp.exp(r) - 1 - r) / r ** 2 if r != 0 else mp.mpf(1) / 2,
                      lambda r: r ** 2 / mp.exp(r), -half_ln2, half_ln2, 4)
    print("// exp: levelled relative error %s (2^%s)" % (mp.nstr(e, 4), mp.nstr(mp.log(e, 2), 4)))
    emit("ExpP", coeffs)
    coeffs, e = remez(lambda f: (mp.log1p(f) - f) / f ** 2 if f != 0 else -mp.mpf(1) / 2,
                      lambda f: f ** 2 / abs(mp.log1p(f)) if f != 0 else abs(f),
                      mp.sqrt(mp.mpf(1) / 2) - 1, mp.sqrt(2) - 1, 8)
    print("// ln: levelled relative error %s (2^%s)" % (mp.nstr(e, 4), mp.nstr(mp.log(e, 2), 4)))
    emit("LnQ", coeffs)


if __name__ == "__main__":
    main()
