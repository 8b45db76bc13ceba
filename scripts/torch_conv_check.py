#!/usr/bin/env python3
"""PyTorch convolutions, forward and backward, on several shapes, for comparing a run under
ucudnn's LD_PRELOAD shim with a run without it (scripts/gpu-validate.sh runs both).

  torch_conv_check.py run --out FILE [--benchmark] [--api legacy|graph]
                                                     saves outputs, gradients and times
  torch_conv_check.py compare BASELINE SHIM           relative errors and time ratios

PyTorch runs convolutions through cuDNN's graph (backend) API by default and through the legacy
API with TORCH_CUDNN_V8_API_DISABLED=1; ucudnn plans both. `run --api` says which the run is
for (default legacy) and refuses to start when the environment says otherwise.
"""
import argparse
import os
import sys
import zlib

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
    legacy = os.environ.get("TORCH_CUDNN_V8_API_DISABLED") == "1"
    if args.api == "legacy" and not legacy:
        sys.exit("torch_conv_check: --api legacy needs TORCH_CUDNN_V8_API_DISABLED=1")
    if args.api == "graph" and legacy:
        sys.exit("torch_conv_check: --api graph needs TORCH_CUDNN_V8_API_DISABLED unset")
    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.benchmark = args.benchmark
    device = torch.device("cuda")
    results = {}
    for name, n, c, h, w, k, r, s, stride, pad, dilation, groups in SHAPES:
        # str's hash() differs between processes: a checksum gives both runs the same data.
        generator = torch.Generator(device="cpu").manual_seed(zlib.crc32(name.encode()))
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
    results["graph_capture"] = graph_capture(torch, F, args.benchmark)
    results["fused_add_relu"] = fused_add_relu(torch, F)
    torch.save(results, args.out)


def timed(torch, function, repeats=10):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        function()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def graph_capture(torch, F, benchmark):
    """A convolution captured into a CUDA graph (torch.cuda.graph, what torch.compile's
    "reduce-overhead" mode does), of a shape the process has not run before: its algorithm
    selection happens inside the capture unless cudnn.benchmark asks for the warm-up PyTorch
    then requires. Nothing may be planned, allocated or synchronized while capturing."""
    generator = torch.Generator(device="cpu").manual_seed(7)
    x = torch.randn(16, 32, 40, 40, generator=generator).cuda()
    weight = torch.randn(48, 32, 3, 3, generator=generator).cuda()
    if benchmark:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            F.conv2d(x, weight, padding=1)
        torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = F.conv2d(x, weight, padding=1)
    graph.replay()
    torch.cuda.synchronize()
    eager = F.conv2d(x, weight, padding=1)
    error = ((y.double() - eager.double()).norm() / eager.double().norm()).item()
    print(f"{'graph_capture':20s} replay vs eager relative error {error:.2e}", flush=True)
    return {"y": y.detach().cpu(), "ms": timed(torch, graph.replay)}


def fused_add_relu(torch, F):
    """PyTorch's legacy fused convolution + add + ReLU, which calls
    cudnnConvolutionBiasActivationForward with the algorithm of its forward cache."""
    generator = torch.Generator(device="cpu").manual_seed(11)
    x = torch.randn(32, 64, 28, 28, generator=generator).cuda()
    weight = torch.randn(64, 64, 3, 3, generator=generator).cuda()
    z = torch.randn(32, 64, 28, 28, generator=generator).cuda()
    bias = torch.randn(64, generator=generator).cuda()

    def fused():
        return torch.cudnn_convolution_add_relu(x, weight, z, 0.5, bias, (1, 1), (1, 1),
                                                (1, 1), 1)

    y = fused()
    unfused = F.relu(F.conv2d(x, weight, bias, padding=1) + 0.5 * z)
    error = ((y.double() - unfused.double()).norm() / unfused.double().norm()).item()
    print(f"{'fused_add_relu':20s} fused vs unfused relative error {error:.2e}", flush=True)
    return {"y": y.detach().cpu(), "ms": timed(torch, fused)}


def compare(args):
    import torch

    baseline, shim = torch.load(args.baseline), torch.load(args.shim)
    worst = 0.0
    print(f"{'layer':20s} {'rel.err y':>10s} {'dx':>10s} {'dw':>10s} {'base ms':>9s} "
          f"{'shim ms':>9s} {'speedup':>8s}")
    for name in baseline:
        errors = []
        if name not in shim:
            sys.exit(f"torch_conv_check: {name} is missing from {args.shim}")
        for tensor in ("y", "dx", "dw"):
            if tensor not in baseline[name]:
                errors.append(float("nan"))
                continue
            a, b = baseline[name][tensor].double(), shim[name][tensor].double()
            errors.append(((a - b).norm() / a.norm()).item())
        worst = max(worst, *(e for e in errors if e == e))
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
    r.add_argument("--api", choices=("legacy", "graph"), default="legacy",
                   help="the cuDNN API PyTorch uses in this run")
    c = commands.add_parser("compare")
    c.add_argument("baseline")
    c.add_argument("shim")
    args = parser.parse_args()
    run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    main()
