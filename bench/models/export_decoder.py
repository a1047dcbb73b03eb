#!/usr/bin/env python3
"""Exports decoders with their key/value cache to ONNX, as a user would (issue 22).

GPT-2 and Llama language models (2 layers, hidden 256, 4 heads, random
weights built from their configs: never a download) are exported by
torch.onnx.export (TorchScript exporter, opset 17) with the cache as inputs
and outputs, in the names the Hugging Face/Optimum exports use:

    inputs   input_ids [batch, sequence] (i64)
             attention_mask [batch, past_sequence + sequence] (i64)
             past_key_values.L.key, past_key_values.L.value
                 [batch, heads, past_sequence, head_dim] (f32)
    outputs  logits [batch, sequence, vocab]
             present.L.key, present.L.value
                 [batch, heads, past_sequence + sequence, head_dim]

batch, sequence and past_sequence are dynamic axes. Beside MODEL_kv.onnx it
writes a prompt (MODEL_kv.prompt.npy, PROMPT ids) and PyTorch's greedy
generation from it (MODEL_kv.generated.npy: the NEW ids, --tokens of them),
computed by model.generate(do_sample=False) on the same weights.

Needs torch and transformers (bench/models only, not the tests' venv):
    python bench/models/export_decoder.py --out /tmp/hf [--only gpt2]
"""
import argparse
import os
import sys

import numpy as np
import torch
import transformers as tf

VOCAB = 1000
PROMPT = 8
LAYERS = 2
HEADS = 4
HIDDEN = 256


def configs():
    """name -> a causal language model with random weights."""
    return {
        "gpt2": lambda: tf.GPT2LMHeadModel(tf.GPT2Config(
            n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_positions=512,
            vocab_size=VOCAB, bos_token_id=0, eos_token_id=0,
            initializer_range=0.1)),
        "llama": lambda: tf.LlamaForCausalLM(tf.LlamaConfig(
            hidden_size=HIDDEN, num_hidden_layers=LAYERS,
            num_attention_heads=HEADS, num_key_value_heads=HEADS,
            intermediate_size=688, max_position_embeddings=512,
            vocab_size=VOCAB, bos_token_id=0, eos_token_id=0)),
        # Other decoders (--family): grouped-query attention, partial
        # rotary, a sliding window.
        "qwen2": lambda: tf.Qwen2ForCausalLM(tf.Qwen2Config(
            hidden_size=HIDDEN, num_hidden_layers=LAYERS,
            num_attention_heads=HEADS, num_key_value_heads=2,
            intermediate_size=688, max_position_embeddings=512,
            vocab_size=VOCAB, bos_token_id=0, eos_token_id=0)),
        "mistral": lambda: tf.MistralForCausalLM(tf.MistralConfig(
            hidden_size=HIDDEN, num_hidden_layers=LAYERS,
            num_attention_heads=HEADS, num_key_value_heads=1,
            intermediate_size=688, max_position_embeddings=512,
            vocab_size=VOCAB, bos_token_id=0, eos_token_id=0)),
        "phi": lambda: tf.PhiForCausalLM(tf.PhiConfig(
            hidden_size=HIDDEN, num_hidden_layers=LAYERS,
            num_attention_heads=HEADS, intermediate_size=1024,
            max_position_embeddings=512, vocab_size=VOCAB, bos_token_id=0,
            eos_token_id=0)),
    }


MAIN = ["gpt2", "llama"]


class WithCache(torch.nn.Module):
    """logits and the new cache from ids, mask and the flat past cache."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, *past):
        cache = tf.DynamicCache()
        for layer in range(LAYERS):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         past_key_values=cache, use_cache=True,
                         return_dict=True)
        present = []
        for layer in range(LAYERS):
            keys, values = cache_layer(out.past_key_values, layer)
            present += [keys, values]
        return (out.logits, *present)


def cache_layer(cache, layer):
    """The keys and values of one layer of a transformers cache."""
    if hasattr(cache, "layers"):
        return cache.layers[layer].keys, cache.layers[layer].values
    return cache.key_cache[layer], cache.value_cache[layer]


def export(name, make, out, tokens):
    torch.manual_seed(0)
    model = make().eval()
    wrapper = WithCache(model)
    head_dim = HIDDEN // HEADS
    rng = np.random.default_rng(2)
    prompt = torch.from_numpy(
        rng.integers(1, VOCAB, size=(1, PROMPT), dtype=np.int64))
    # Traced at past 3, sequence 2: neither is 1, so no axis is specialized.
    ids = prompt[:, :2]
    kv_heads = getattr(model.config, "num_key_value_heads", None) or HEADS
    past = [torch.randn(1, kv_heads, 3, head_dim) for _ in range(2 * LAYERS)]
    mask = torch.ones(1, 5, dtype=torch.int64)
    names = ["input_ids", "attention_mask"]
    outputs = ["logits"]
    axes = {"input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "total_sequence"},
            "logits": {0: "batch", 1: "sequence"}}
    for layer in range(LAYERS):
        for kind in ("key", "value"):
            names.append(f"past_key_values.{layer}.{kind}")
            outputs.append(f"present.{layer}.{kind}")
            axes[names[-1]] = {0: "batch", 2: "past_sequence"}
            axes[outputs[-1]] = {0: "batch", 2: "total_sequence"}
    path = os.path.join(out, name + "_kv.onnx")
    with torch.no_grad():
        # Before the export: tracing leaves the model in another state, and
        # generate() then gives other tokens than the model's own logits.
        generated = model.generate(
            prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
            max_new_tokens=tokens, min_new_tokens=tokens, pad_token_id=0)
        torch.onnx.export(wrapper, (ids, mask, *past), path, opset_version=17,
                          input_names=names, output_names=outputs,
                          dynamic_axes=axes, dynamo=False)
    new = generated[:, PROMPT:].numpy()
    np.save(os.path.join(out, name + "_kv.prompt.npy"), prompt.numpy())
    np.save(os.path.join(out, name + "_kv.generated.npy"), new)
    print(f"{name}: {path} ({os.path.getsize(path) // 1024} KiB), "
          f"greedy {new.shape[1]} tokens: {new[0, :8].tolist()}...")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/hf")
    ap.add_argument("--only", default="")
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--family", action="store_true",
                    help="the other decoders: qwen2, mistral, phi")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wanted = [n for n in args.only.split(",") if n] or (
        [n for n in configs() if n not in MAIN] if args.family else MAIN)
    failed = 0
    for name, make in configs().items():
        if name not in wanted:
            continue
        try:
            export(name, make, args.out, args.tokens)
        except Exception as e:  # report every model, not only the first failure
            print(f"{name}: export failed: {type(e).__name__}: {e}",
                  file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
