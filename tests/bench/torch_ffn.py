#!/usr/bin/python3
"""PyTorch peer for ffn_bench: one Adam + BCE training step of a 2 -> H -> H -> 1 GELU MLP, batch 256.

Single thread (torch.set_num_threads(1)), float32, the same shapes and the same work per step as
gelu::ffn::Trainer<float>::step(): gather a shuffled minibatch, forward, BCE-with-logits, backward, Adam.
Prints one line per width: `torch H=<H> us_per_step=<wall> cpu_us_per_step=<process CPU> blas=<library>`
(medians over repetitions; CPU time is the fairer figure on a shared machine).
Run with /usr/bin/python3 (python3-torch) and libopenblas0-serial as the BLAS (checked and printed).
"""
import argparse
import math
import sys
import time

import torch


def blas_library():
    """The BLAS shared object actually mapped into this process (torch links libblas.so.3 via alternatives)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
        return ",".join(sorted(libs)) or "none"
    except OSError:
        return "unknown"


def spiral(n, seed):
    g = torch.Generator().manual_seed(seed)
    label = torch.arange(n) % 2
    r = torch.rand(n, generator=g).sqrt()
    theta = 2 * math.pi * (1.5 * r + label / 2)
    x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], 1) + 0.05 * torch.randn(n, 2, generator=g)
    return x.float(), label.float().unsqueeze(1)


def time_width(h, steps, reps, batch):
    torch.manual_seed(1)
    x, y = spiral(750, 1)
    model = torch.nn.Sequential(torch.nn.Linear(2, h), torch.nn.GELU(), torch.nn.Linear(h, h), torch.nn.GELU(),
                                torch.nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    perm, cursor = torch.randperm(len(x)), 0

    def step():
        nonlocal perm, cursor
        if cursor + batch > len(x):
            perm, cursor = torch.randperm(len(x)), 0
        idx = perm[cursor:cursor + batch]
        cursor += batch
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        opt.step()

    for _ in range(200):
        step()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            step()
        wall.append((time.perf_counter() - t0) / steps * 1e6)
        cpu.append((time.process_time() - c0) / steps * 1e6)
    wall.sort()
    cpu.sort()
    return wall[len(wall) // 2], cpu[len(cpu) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--widths", default="32,128")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=256)
    a = ap.parse_args()
    torch.set_num_threads(1)
    blas = blas_library()
    for h in (int(w) for w in a.widths.split(",")):
        us, cpu_us = time_width(h, a.steps, a.reps, a.batch)
        print(f"torch H={h} us_per_step={us:.2f} cpu_us_per_step={cpu_us:.2f} blas={blas}", flush=True)
    if "openblas" not in blas:
        print(f"warning: PyTorch is not on OpenBLAS ({blas}); install libopenblas0-serial", file=sys.stderr)


if __name__ == "__main__":
    main()
