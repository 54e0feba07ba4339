#!/usr/bin/python3
"""The nowcast benchmark's peer method: OpenCV Farneback optical flow plus stepwise
semi-Lagrangian advection, as LibreWXR extrapolates radar.

For every base time of the sequence in --frames (decoded frames: {YYYYMMDDHHmm}.f32, float32
LE with NaN where there is no coverage, and grid.json giving width, height and whether the
product is reflectivity; the benchmark writes them with the service's GRIB2 reader) whose previous frame (one step earlier) is
there, the flow is measured between the two latest frames on a copy shrunk to at most 1000
pixels wide (as LibreWXR does), scaled up to the full grid, and the latest full-resolution
grid is moved one 2-minute step at a time (cv2.remap, bilinear) to each lead whose observed
frame is in the directory. Writes {--out}/{YYYYMMDDHHmm}_{lead}.f32: float32 LE, the grid's
shape and row order, NaN where there is no coverage, the same interface as `npm run nowcast`.

The 8-bit flow image is echo strength on the same scale as the service's nowcast (decibels of
0.1..100 mm/h, or 10..65 dBZ).

usage: /usr/bin/python3 tools/bench/nowcast-peer.py --frames DIR --out DIR [--leads 10,20,...]
"""
import argparse
import datetime as dt
import json
import os
import re
import sys
import time

import cv2
import numpy as np

STEP_MIN = 2
NAME = re.compile(r"^([0-9]{12})\.f32$")


def frames_in(directory):
    out = {}
    for name in sorted(os.listdir(directory)):
        m = NAME.match(name)
        if m:
            out[dt.datetime.strptime(m.group(1), "%Y%m%d%H%M")] = os.path.join(directory, name)
    return out


def read(path, shape):
    return np.fromfile(path, dtype="<f4").reshape(shape).astype(np.float32)


def echo_u8(a, reflectivity):
    with np.errstate(invalid="ignore", divide="ignore"):
        if reflectivity:
            s = (a - 10.0) / 55.0
        else:
            s = (np.log10(a) + 1.0) / 3.0
    s = np.where(np.isnan(s) | (s < 0), 0, np.minimum(s, 1))
    return np.round(255 * s).astype(np.uint8)


def flow(prev, curr, reflectivity):
    h, w = curr.shape
    f = min(1.0, 1000.0 / w)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    p = cv2.resize(echo_u8(prev, reflectivity), size, interpolation=cv2.INTER_AREA)
    c = cv2.resize(echo_u8(curr, reflectivity), size, interpolation=cv2.INTER_AREA)
    fl = cv2.calcOpticalFlowFarneback(p, c, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    u = cv2.resize(fl[..., 0], (w, h), interpolation=cv2.INTER_LINEAR) / f
    v = cv2.resize(fl[..., 1], (w, h), interpolation=cv2.INTER_LINEAR) / f
    return u, v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--leads", default="10,20,30,40,50,60")
    args = ap.parse_args()
    with open(os.path.join(args.frames, "grid.json")) as f:
        grid = json.load(f)
    shape = (grid["height"], grid["width"])
    reflectivity = grid["reflectivity"]
    leads = [int(x) for x in args.leads.split(",")]
    frames = frames_in(args.frames)
    os.makedirs(args.out, exist_ok=True)
    step = dt.timedelta(minutes=STEP_MIN)
    cycles, cpu = 0, 0.0
    for base in sorted(frames):
        wanted = [l for l in leads if base + dt.timedelta(minutes=l) in frames]
        if base - step not in frames or not wanted:
            continue
        began = time.process_time()
        prev = read(frames[base - step], shape)
        curr = read(frames[base], shape)
        u, v = flow(prev, curr, reflectivity)
        del prev
        h, w = curr.shape
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        map_x, map_y = gx - u, gy - v
        del gx, gy, u, v
        field = curr
        for k in range(1, max(wanted) // STEP_MIN + 1):
            field = cv2.remap(field, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=float("nan"))
            if k * STEP_MIN in wanted:
                stamp = base.strftime("%Y%m%d%H%M")
                field.astype("<f4").tofile(os.path.join(args.out, f"{stamp}_{k * STEP_MIN}.f32"))
        cpu += time.process_time() - began
        cycles += 1
    print(f"peer: {cycles} cycles, {cpu:.1f} CPU-s in cycles ({cpu / max(cycles, 1):.2f} per cycle)", file=sys.stderr)


if __name__ == "__main__":
    main()
