#!/usr/bin/env python3
"""One real model's training step, timed: torchvision's ResNet-50 on synthetic data (SGD), for
comparing PyTorch alone with PyTorch under ucudnn (scripts/gpu-validate.sh part 5 runs both).

  torch_train_step.py [--precision fp32|amp] [--batch 64] [--steps 30] [--warmup 5] [--label L]
                      [--pressure-free-mib X | --blocker-bytes N]

fp32 runs TF32 convolutions (PyTorch's default for cuDNN); amp is bf16 autocast with
channels_last, as most training on recent GPUs runs. Prints one line:

  RESULT label=L precision=fp32 api=graph median_ms=38.21 min_ms=38.02 gpu_ms=36.36 host_loss_ms=1.85 warmup_s=3.2

median/min: wall time per step (a step ends with a device synchronization); gpu_ms: the GPU
kernels' time per step, from torch.profiler over a few more steps; host_loss_ms = median - gpu.

Memory pressure, as a user whose GPU is nearly full meets it: --pressure-free-mib X first finds
the largest tensor ("blocker") beside which a training step still runs (a bisection over
steps that run out of memory, each probe in a fresh allocator state), then holds that less
X MiB for the whole run, so that X MiB is all the memory beyond what the step itself needs:
PyTorch picks the engines whose workspace it can allocate. The line then says
blocker_bytes=N; --blocker-bytes N holds exactly that (the run under ucudnn, with
UCUDNN_WORKSPACE_LIMIT=X MiB, gets the same memory). The bisection starts from a process that
has run no step, so that no engine chosen without pressure is cached before it.
"""
import argparse
import gc
import os
import statistics
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--precision", choices=["fp32", "amp"], default="fp32")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--profiled-steps", type=int, default=5)
    parser.add_argument("--label", default="run")
    parser.add_argument("--benchmark", action="store_true", help="torch.backends.cudnn.benchmark")
    pressure = parser.add_mutually_exclusive_group()
    pressure.add_argument("--pressure-free-mib", type=int, help="leave X MiB beside the step")
    pressure.add_argument("--blocker-bytes", type=int, help="hold a tensor of N bytes")
    args = parser.parse_args()

    import torch
    import torchvision

    if not torch.cuda.is_available():
        sys.exit("torch_train_step: no GPU")
    torch.backends.cudnn.benchmark = args.benchmark
    torch.backends.cudnn.allow_tf32 = True
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = torchvision.models.resnet50(num_classes=1000).to(device)
    memory_format = torch.channels_last if args.precision == "amp" else torch.contiguous_format
    model = model.to(memory_format=memory_format)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(args.batch, 3, 224, 224, device=device).to(memory_format=memory_format)
    labels = torch.randint(0, 1000, (args.batch,), device=device)
    loss_function = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.precision == "amp"):
            loss = loss_function(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss

    blocker_bytes = None
    if args.pressure_free_mib is not None:
        searched_bytes = largest_blocker(torch, step)
        blocker_bytes = searched_bytes - args.pressure_free_mib * 2**20
    elif args.blocker_bytes is not None:
        blocker_bytes = args.blocker_bytes
    blocker = None
    # The warm-up holds the first step, where cuDNN's autotuning (cudnn.benchmark) or ucudnn's
    # measuring of an empty database happens.
    warmup_start = time.perf_counter()
    if blocker_bytes is None:
        for _ in range(args.warmup):
            step()
    else:
        # The search's steps ran in another state of PyTorch's caching allocator: where the
        # first steps beside the blocker run out of memory after all (seen with 8 MiB left on
        # an H200), the blocker shrinks by 8 MiB, and the RESULT says what was left.
        for attempt in range(8):
            try:
                torch.cuda.empty_cache()
                blocker = torch.empty(max(blocker_bytes, 0), dtype=torch.uint8, device=device)
                for _ in range(max(args.warmup, 2)):
                    step()
                torch.cuda.synchronize()
                break
            except torch.cuda.OutOfMemoryError:
                if args.pressure_free_mib is None:
                    raise  # a blocker given is held as it is: runs compared hold the same
                blocker = None
                blocker_bytes -= 8 * 2**20
        else:
            sys.exit("torch_train_step: out of memory beside every blocker tried")
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - warmup_start
    # As timeit does: a garbage collection inside a step is the interpreter's noise, and a step
    # bound by the host (bf16: 15 ms of kernels in 24 ms) shows it whole.
    gc.collect()
    gc.disable()
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
    gc.enable()

    gpu_ms = float("nan")
    if args.profiled_steps > 0:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.profiled_steps):
                step()
            torch.cuda.synchronize()
        total_us = sum(e.self_device_time_total for e in prof.key_averages())
        gpu_ms = total_us / 1000 / args.profiled_steps

    api = "legacy" if os.environ.get("TORCH_CUDNN_V8_API_DISABLED") == "1" else "graph"
    median = statistics.median(times)
    pressure = ""
    if blocker is not None:
        free_mib = None
        if args.pressure_free_mib is not None:
            free_mib = (searched_bytes - blocker_bytes) // 2**20
        pressure = f" blocker_bytes={blocker_bytes}" + (
            f" free_mib={free_mib}" if free_mib is not None else ""
        )
    print(
        f"RESULT label={args.label} precision={args.precision} api={api} "
        f"median_ms={median:.2f} min_ms={min(times):.2f} gpu_ms={gpu_ms:.2f} "
        f"host_loss_ms={median - gpu_ms:.2f} warmup_s={warmup_s:.1f}{pressure}",
        flush=True,
    )


def largest_blocker(torch, step, tolerance=2**20):
    """The largest tensor, in bytes, beside which a training step runs without running out of
    memory, to within `tolerance` (1 MiB: finer than the 8 MiB left free in the tightest run,
    whatever the GPU's size)."""
    torch.cuda.empty_cache()
    free, _ = torch.cuda.mem_get_info()
    low, high = 0, free
    while high - low > tolerance:
        middle = (low + high) // 2
        blocker = None
        try:
            blocker = torch.empty(middle, dtype=torch.uint8, device="cuda")
            # Two steps: the second runs in the allocator's steady state, as the timed ones do.
            step()
            step()
            torch.cuda.synchronize()
            low = middle
        except torch.cuda.OutOfMemoryError:
            high = middle
        finally:
            del blocker
            torch.cuda.empty_cache()
    return low


if __name__ == "__main__":
    main()
