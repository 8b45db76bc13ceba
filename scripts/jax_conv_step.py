#!/usr/bin/env python3
"""A jitted JAX (XLA) convolution step, forward and gradient, timed: XLA opens cuDNN with
dlopen(RTLD_LOCAL) and looks its functions up with dlsym, which ucudnn reaches through its
LD_AUDIT auditor (scripts/ucudnn-run). scripts/gpu-validate.sh part 5 runs it alone and under
ucudnn. Prints one line:

  RESULT label=L median_ms=1.23 min_ms=1.20
"""
import argparse
import gc
import statistics
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--label", default="run")
    args = parser.parse_args()

    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    kx, kw1, kw2 = jax.random.split(key, 3)
    # ResNet-like: batch 64, 64 channels at 56x56, two 3x3 convolutions.
    x = jax.random.normal(kx, (64, 64, 56, 56), jnp.float32)
    w1 = jax.random.normal(kw1, (64, 64, 3, 3), jnp.float32) * 0.05
    w2 = jax.random.normal(kw2, (64, 64, 3, 3), jnp.float32) * 0.05

    def loss(weights, x):
        a, b = weights
        dims = ("NCHW", "OIHW", "NCHW")
        y = jax.lax.conv_general_dilated(x, a, (1, 1), "SAME", dimension_numbers=dims)
        y = jax.nn.relu(y)
        y = jax.lax.conv_general_dilated(y, b, (1, 1), "SAME", dimension_numbers=dims)
        return jnp.mean(y * y)

    step = jax.jit(jax.value_and_grad(loss))
    weights = (w1, w2)
    for _ in range(args.warmup):
        jax.block_until_ready(step(weights, x))
    gc.collect()
    gc.disable()  # as timeit does: a collection inside a step is the interpreter's noise
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        jax.block_until_ready(step(weights, x))
        times.append((time.perf_counter() - start) * 1000)
    gc.enable()
    print(
        f"RESULT label={args.label} median_ms={statistics.median(times):.3f} "
        f"min_ms={min(times):.3f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
