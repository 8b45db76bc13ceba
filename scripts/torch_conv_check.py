#!/usr/bin/env python3
"""PyTorch convolutions, forward and backward, on several shapes, for comparing a run under
ucudnn's LD_PRELOAD shim with a run without it (scripts/gpu-validate.sh runs both).

  torch_conv_check.py run --out FILE [--benchmark]   saves outputs, gradients and times
  torch_conv_check.py compare BASELINE SHIM           relative errors and time ratios

PyTorch calls cuDNN's legacy API (the one the shim intercepts) only with
TORCH_CUDNN_V8_API_DISABLED=1; `run` refuses to start without it.
"""
import argparse
import os
import sys

# (name, N, C, H, W, K, R, S, stride, pad, dilation, groups)
SHAPES = [
    ("alexnet.conv1", 128, 3, 227, 227, 96, 11, 11, 4, 0, 1, 1),
    ("alexnet.conv2", 128, 96, 27, 27, 256, 5, 5, 1, 2, 1, 2),
    ("resnet.res2_3x3", 64, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1),
    ("resnet.res3_3x3_s2", 64, 128, 56, 56, 128, 3, 3, 2, 1, 1, 1),
    ("resnet.res4_1x1", 64, 1024, 14, 14, 256, 1, 1, 1, 0, 1, 1),
    ("dilated_3x3", 32, 64, 64, 64, 64, 3, 3, 1, 2, 2, 1),
]


def run(args):
    if os.environ.get("TORCH_CUDNN_V8_API_DISABLED") != "1":
        sys.exit("torch_conv_check: set TORCH_CUDNN_V8_API_DISABLED=1 (the legacy cuDNN API)")
    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.benchmark = args.benchmark
    device = torch.device("cuda")
    results = {}
    for name, n, c, h, w, k, r, s, stride, pad, dilation, groups in SHAPES:
        generator = torch.Generator(device="cpu").manual_seed(hash(name) % (2**31))
        x = torch.randn(n, c, h, w, generator=generator).to(device).requires_grad_()
        weight = torch.randn(k, c // groups, r, s, generator=generator).to(device)
        weight.requires_grad_()

        def step():
            x.grad = None
            weight.grad = None
            y = F.conv2d(x, weight, stride=stride, padding=pad, dilation=dilation, groups=groups)
            y.backward(torch.ones_like(y))
            return y

        y = step()  # warm-up: algorithm selection (and ucudnn's planning) happens here
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(args.repeats):
            start.record()
            step()
            stop.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(stop))
        times.sort()
        results[name] = {
            "y": y.detach().cpu(),
            "dx": x.grad.detach().cpu(),
            "dw": weight.grad.detach().cpu(),
            "ms": times[len(times) // 2],
        }
        print(f"{name:20s} forward+backward {results[name]['ms']:.3f} ms", flush=True)
    torch.save(results, args.out)


def compare(args):
    import torch

    baseline, shim = torch.load(args.baseline), torch.load(args.shim)
    worst = 0.0
    print(f"{'layer':20s} {'rel.err y':>10s} {'dx':>10s} {'dw':>10s} {'base ms':>9s} "
          f"{'shim ms':>9s} {'speedup':>8s}")
    for name in baseline:
        errors = []
        for tensor in ("y", "dx", "dw"):
            a, b = baseline[name][tensor].double(), shim[name][tensor].double()
            errors.append(((a - b).norm() / a.norm()).item())
        worst = max(worst, *errors)
        print(f"{name:20s} {errors[0]:10.2e} {errors[1]:10.2e} {errors[2]:10.2e} "
              f"{baseline[name]['ms']:9.3f} {shim[name]['ms']:9.3f} "
              f"{baseline[name]['ms'] / shim[name]['ms']:7.2f}x")
    # TF32 tensor cores and different algorithms round differently; a lost micro-batch or a
    # wrong beta is off by far more.
    if worst > 5e-3:
        sys.exit(f"torch_conv_check: results differ (worst relative error {worst:.2e})")
    print(f"torch_conv_check: results agree (worst relative error {worst:.2e})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--repeats", type=int, default=10)
    r.add_argument("--benchmark", action="store_true", help="torch.backends.cudnn.benchmark")
    c = commands.add_parser("compare")
    c.add_argument("baseline")
    c.add_argument("shim")
    args = parser.parse_args()
    run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    main()
