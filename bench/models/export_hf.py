#!/usr/bin/env python3
"""Exports small Hugging Face transformer models to ONNX, as a user would (issue 21).

Each model is built from its config with random weights (never a download: no
from_pretrained, no hub), 2 layers, hidden 256, 4 heads, and exported by
torch.onnx.export's TorchScript exporter at opset 17 with static shapes
(batch 1, sequence 128), or with --dynamic batch and sequence as dynamic
axes (MODEL_dynamic.onnx); --dynamo uses the dynamo exporter (torch's
default) at its own opset instead (MODEL_dynamo.onnx); --half exports the
model in f16 (MODEL_f16.onnx: weights, activations and output), --layers N
N layers instead of 2 (MODEL_LN.onnx). Beside each MODEL.onnx it writes the inputs it was
exported with (MODEL.input_ids.npy, MODEL.attention_mask.npy where the model
takes one) and PyTorch eager's output (MODEL.expected.npy).

Needs torch and transformers (not in the tests' venv; bench/models only):
    python bench/models/export_hf.py --out /tmp/hf [--only bert,gpt2]
"""
import argparse
import os
import sys

import numpy as np
import torch
import transformers as tf

SEQ = 128
VOCAB = 1000
COMMON = dict(vocab_size=VOCAB)
# 2 layers, hidden 256, 4 heads, in the names most configs use.
LAYERS = dict(COMMON, hidden_size=256, num_hidden_layers=2, num_attention_heads=4)


MAIN = ["bert", "distilbert", "gpt2", "llama", "t5enc"]
FAMILY = ["roberta", "albert", "electra", "deberta_v2", "mpnet", "qwen2",
          "mistral", "gemma", "phi", "gpt_neo", "bloom", "opt"]


def configs(depth=2):
    """name -> (model constructor, takes attention_mask), `depth` layers."""
    LAYERS = dict(globals()["LAYERS"], num_hidden_layers=depth)
    return {
        "bert": (lambda: tf.BertModel(tf.BertConfig(
            intermediate_size=1024, max_position_embeddings=512, **LAYERS)), True),
        "distilbert": (lambda: tf.DistilBertModel(tf.DistilBertConfig(
            dim=256, n_layers=depth, n_heads=4, hidden_dim=1024,
            max_position_embeddings=512, **COMMON)), True),
        "gpt2": (lambda: tf.GPT2Model(tf.GPT2Config(
            n_embd=256, n_layer=depth, n_head=4, n_positions=512, use_cache=False,
            bos_token_id=0, eos_token_id=0, **COMMON)), True),
        "llama": (lambda: tf.LlamaModel(tf.LlamaConfig(
            num_key_value_heads=4, intermediate_size=688,
            max_position_embeddings=512, use_cache=False, **LAYERS)), True),
        # Other members of the families (--family).
        "roberta": (lambda: tf.RobertaModel(tf.RobertaConfig(
            intermediate_size=1024, max_position_embeddings=514, **LAYERS)), True),
        "albert": (lambda: tf.AlbertModel(tf.AlbertConfig(
            embedding_size=128, intermediate_size=1024,
            max_position_embeddings=512, **LAYERS)), True),
        "electra": (lambda: tf.ElectraModel(tf.ElectraConfig(
            embedding_size=128, intermediate_size=1024,
            max_position_embeddings=512, **LAYERS)), True),
        "qwen2": (lambda: tf.Qwen2Model(tf.Qwen2Config(
            num_key_value_heads=2, intermediate_size=688,
            max_position_embeddings=512, use_cache=False, **LAYERS)), True),
        "mistral": (lambda: tf.MistralModel(tf.MistralConfig(
            num_key_value_heads=1, intermediate_size=688,
            max_position_embeddings=512, use_cache=False, **LAYERS)), True),
        "gpt_neo": (lambda: tf.GPTNeoModel(tf.GPTNeoConfig(
            hidden_size=256, num_layers=depth, num_heads=4,
            attention_types=[[["global", "local"], max(1, depth // 2)]], window_size=32,
            max_position_embeddings=512, use_cache=False, bos_token_id=0,
            eos_token_id=0, **COMMON)), True),
        "deberta_v2": (lambda: tf.DebertaV2Model(tf.DebertaV2Config(
            intermediate_size=1024, max_position_embeddings=512, **LAYERS)), True),
        "mpnet": (lambda: tf.MPNetModel(tf.MPNetConfig(
            intermediate_size=1024, max_position_embeddings=514, **LAYERS)), True),
        "phi": (lambda: tf.PhiModel(tf.PhiConfig(
            intermediate_size=1024, max_position_embeddings=512,
            use_cache=False, **LAYERS)), True),
        "gemma": (lambda: tf.GemmaModel(tf.GemmaConfig(
            num_key_value_heads=1, head_dim=64, intermediate_size=688,
            max_position_embeddings=512, use_cache=False, **LAYERS)), True),
        "bloom": (lambda: tf.BloomModel(tf.BloomConfig(
            hidden_size=256, n_layer=depth, n_head=4, use_cache=False,
            **COMMON)), True),
        "opt": (lambda: tf.OPTModel(tf.OPTConfig(
            ffn_dim=1024, word_embed_proj_dim=256,
            max_position_embeddings=512, use_cache=False, **LAYERS)), True),
        "t5enc": (lambda: tf.T5EncoderModel(tf.T5Config(
            d_model=256, num_layers=depth, num_heads=4, d_kv=64, d_ff=1024,
            use_cache=False, **COMMON)), True),
    }


class LastHidden(torch.nn.Module):
    """The model's last hidden state only: one output, no cache tuples."""

    def __init__(self, model, with_mask):
        super().__init__()
        self.model = model
        self.with_mask = with_mask

    def forward(self, input_ids, attention_mask=None):
        kwargs = {"attention_mask": attention_mask} if self.with_mask else {}
        return self.model(input_ids=input_ids, return_dict=True,
                          **kwargs).last_hidden_state


def export(name, make, with_mask, out, dynamic, dynamo, half=False, depth=2):
    torch.manual_seed(0)
    model = LastHidden(make().eval(), with_mask)
    if half:
        model = model.half()
    rng = np.random.default_rng(1)
    ids = torch.from_numpy(rng.integers(0, VOCAB, size=(1, SEQ), dtype=np.int64))
    mask = torch.ones(1, SEQ, dtype=torch.int64)
    args = (ids, mask) if with_mask else (ids,)
    names = ["input_ids", "attention_mask"][:len(args)]
    stem = (name + ("_dynamic" if dynamic else "") +
            ("_dynamo" if dynamo else "") + ("_f16" if half else "") +
            (f"_L{depth}" if depth != 2 else ""))
    path = os.path.join(out, stem + ".onnx")
    axes = {n: {0: "batch", 1: "sequence"} for n in names} if dynamic else None
    if dynamic:
        axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        expected = model(*args).float().numpy()
        if dynamo:
            # The default exporter of torch 2.9+, at its own opset.
            torch.onnx.export(model, args, path, input_names=names,
                              output_names=["last_hidden_state"],
                              dynamic_axes=axes, dynamo=True,
                              external_data=False)
        else:
            torch.onnx.export(model, args, path, opset_version=17,
                              input_names=names,
                              output_names=["last_hidden_state"],
                              dynamic_axes=axes, dynamo=False)
    np.save(os.path.join(out, stem + ".input_ids.npy"), ids.numpy())
    if with_mask:
        np.save(os.path.join(out, stem + ".attention_mask.npy"), mask.numpy())
    np.save(os.path.join(out, stem + ".expected.npy"), expected)
    print(f"{name}: {path} ({os.path.getsize(path) // 1024} KiB), output {expected.shape}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/hf")
    ap.add_argument("--only", default="")
    ap.add_argument("--family", action="store_true",
                    help="other models of the families: " + ", ".join(FAMILY))
    ap.add_argument("--dynamo", action="store_true",
                    help="the dynamo exporter at its opset (MODEL_dynamo.onnx)")
    ap.add_argument("--dynamic", action="store_true",
                    help="batch and sequence as dynamic axes (MODEL_dynamic.onnx)")
    ap.add_argument("--half", action="store_true",
                    help="the model in f16 (MODEL_f16.onnx)")
    ap.add_argument("--layers", type=int, default=2,
                    help="layers of each model (MODEL_L<N>.onnx unless 2)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wanted = [n for n in args.only.split(",") if n] or (
        FAMILY if args.family else MAIN)
    failed = 0
    for name, (make, with_mask) in configs(args.layers).items():
        if name not in wanted:
            continue
        try:
            export(name, make, with_mask, args.out, args.dynamic, args.dynamo,
                   args.half, args.layers)
        except Exception as e:  # report every model, not only the first failure
            print(f"{name}: export failed: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
