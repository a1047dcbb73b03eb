#!/usr/bin/env python3
"""Exports small vision and audio models to ONNX as a user would, and checks
Fuse on them against PyTorch eager (issue 20).

Models, all with random weights (torchvision `weights=None`, transformers
configs: never a download):
  resnet18       torchvision, batch 1, 224x224
  resnet18_b4    the same at batch 4
  resnet18_dyn   batch as a dynamic axis ("batch"), run at batch 2
  mobilenet_v2   torchvision, batch 1
  vit            transformers ViTModel: 2 layers, hidden 256, 4 heads,
                 224x224 in 16x16 patches (a Conv patch embedding)
  whisper_enc    transformers WhisperModel's encoder: 2 layers, d_model 256,
                 4 heads, 80 mel bins x 3000 frames (two 1-D convolutions,
                 GELU, 1500 positions)
and with --family: squeezenet1_1, shufflenet_v2_x0_5, mobilenet_v3_small,
efficientnet_b0, regnet_x_400mf, googlenet, lraspp_mobilenet_v3_large
(segmentation: bilinear Resize to the input's size) and upsample_net (Resize
as nn.Upsample and F.interpolate export it: nearest x2, bilinear to a size
with align_corners, bilinear x0.5, bilinear x1.7 with align_corners).
and with --more: resnet34, resnet50, resnext50_32x4d, wide_resnet50_2,
mobilenet_v3_large, regnet_y_400mf, densenet121, convnext_tiny, mnasnet0_5,
swin_t, vit_b_16 (its head drawn at random), a GroupNorm net, Whisper
encoders of other sizes (d_model 384 x 4 layers; 128 mel bins x 1000
frames), Wav2Vec2Model (hidden 64, 2 layers; GroupNorm and LayerNorm
feature extractors) and ASTModel (128 mel bins x 256 frames).
BatchNormalization statistics are set from one random batch (calibrate).
Each is exported twice: torch.onnx.export's TorchScript exporter at opset 17
(MODEL.onnx) and the dynamo exporter at its own opset (MODEL_dynamo.onnx).
Beside each model: its input (MODEL.INPUT.npy) and PyTorch eager's output
(MODEL.expected.npy).

--check BUILD then runs each with BUILD/bin/fuse-run MODEL.onnx --check
(the host runtime against the reference runtime) and compares Fuse's output
with eager's, relative to the output's largest magnitude (pass: <= 1e-3);
also onnxruntime's where it is installed; then runs it on a second input
with the same bundle cache, which must compile nothing ("compiled": 0).
--bench N adds the median of N runs on Fuse, onnxruntime and OpenVINO in f32
(2 threads each; OpenVINO where installed).

Needs torch, torchvision, transformers, onnxscript (bench/models only):
    python bench/models/export_vision.py --out /tmp/vision [--only vit,resnet18]
    python bench/models/export_vision.py --out /tmp/vision --check build
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from peers import openvino_ms

NAMES = ["resnet18", "resnet18_b4", "resnet18_dyn", "mobilenet_v2", "vit",
         "whisper_enc"]
FAMILY = ["squeezenet", "shufflenet", "mobilenet_v3", "efficientnet",
          "regnet", "googlenet", "lraspp", "upsample_net"]
MORE = ["resnet34", "resnet50", "resnext50", "wide_resnet50",
        "mobilenet_v3_large", "regnet_y", "whisper_tiny", "whisper_128mel",
        "wav2vec2", "wav2vec2_layer", "densenet121", "convnext_tiny",
        "mnasnet", "swin_t", "groupnorm_net", "ast", "vit_b_16"]


def models():
    """name -> (constructor, input name, input shape, dynamic batch)."""
    import torch
    import torchvision
    import transformers as tf

    class Hidden(torch.nn.Module):
        """A transformers model's last hidden state alone: one output."""

        def __init__(self, model, arg):
            super().__init__()
            self.model, self.arg = model, arg

        def forward(self, x):
            return self.model(**{self.arg: x}).last_hidden_state

    def vit():
        return Hidden(tf.ViTModel(tf.ViTConfig(
            hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=1024, image_size=224, patch_size=16),
            add_pooling_layer=False), "pixel_values")

    def whisper():
        config = tf.WhisperConfig(
            d_model=256, encoder_layers=2, decoder_layers=2,
            encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=1024, decoder_ffn_dim=1024, num_mel_bins=80,
            max_source_positions=1500, vocab_size=1000, pad_token_id=0,
            bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)
        return Hidden(tf.WhisperModel(config).get_encoder(), "input_features")

    def whisper_sized(d_model, layers, heads, mels, positions):
        config = tf.WhisperConfig(
            d_model=d_model, encoder_layers=layers, decoder_layers=1,
            encoder_attention_heads=heads, decoder_attention_heads=heads,
            encoder_ffn_dim=4 * d_model, decoder_ffn_dim=4 * d_model,
            num_mel_bins=mels, max_source_positions=positions,
            vocab_size=1000, pad_token_id=0, bos_token_id=0, eos_token_id=0,
            decoder_start_token_id=0)
        return Hidden(tf.WhisperModel(config).get_encoder(), "input_features")

    def wav2vec2(norm):
        """Wav2Vec2Model, small: hidden 64, 2 layers; the convolutional
        feature extractor (7 1-D convolutions, GELU) with GroupNorm on its
        first layer (norm "group", base) or LayerNorm after each (norm
        "layer", large: stable layer norm), the grouped positional
        convolution (kernel 128, 16 groups, weight norm)."""
        config = tf.Wav2Vec2Config(
            hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=256, conv_dim=(64,) * 7,
            feat_extract_norm=norm, do_stable_layer_norm=norm == "layer",
            num_conv_pos_embeddings=32, num_conv_pos_embedding_groups=4,
            apply_spec_augment=False)
        return Hidden(tf.Wav2Vec2Model(config), "input_values")

    class GroupNormNet(torch.nn.Module):
        """Convolutions with GroupNorm of 8 groups (detection heads,
        diffusion UNets): 32 and 64 channels, 4 and 8 per group."""

        def __init__(self):
            super().__init__()
            nn = torch.nn
            self.body = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.GroupNorm(8, 32), nn.SiLU(),
                nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.GroupNorm(8, 64),
                nn.SiLU(), nn.Conv2d(64, 16, 1))

        def forward(self, x):
            return self.body(x)

    def ast():
        """ASTModel (audio spectrogram transformer): 2 layers, hidden 192,
        128 mel bins x 256 frames in 16x16 patches with stride 10."""
        config = tf.ASTConfig(hidden_size=192, num_hidden_layers=2,
                              num_attention_heads=3, intermediate_size=768,
                              max_length=256, num_mel_bins=128)
        return Hidden(tf.ASTModel(config), "input_values")

    def vit_b_16():
        """torchvision's ViT-B/16; its head starts at zero (an all-zero
        output): drawn at random instead."""
        model = tv.vit_b_16(weights=None)
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
        torch.nn.init.normal_(model.heads.head.bias, std=0.02)
        return model

    class Segmentation(torch.nn.Module):
        """A torchvision segmentation model's "out" alone."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    class UpsampleNet(torch.nn.Module):
        """Resize as exporters write it: nn.Upsample(scale_factor=2,
        nearest) (scales, asymmetric, floor), F.interpolate to a size with
        bilinear and align_corners (sizes), bilinear x0.5 without (half
        pixel), and bilinear x1.7 with align_corners (scales that give no
        whole length: 18 x 1.7 = 30.6, 22 x 1.7 = 37.4)."""

        def __init__(self):
            super().__init__()
            F = torch.nn.functional
            self.interpolate = F.interpolate
            self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.up = torch.nn.Upsample(scale_factor=2, mode="nearest")
            self.b = torch.nn.Conv2d(8, 8, 3, padding=1)

        def forward(self, x):
            y = self.up(torch.relu(self.a(x)))
            y = self.interpolate(self.b(y), size=(37, 45), mode="bilinear",
                                 align_corners=True)
            y = self.interpolate(y, scale_factor=0.5, mode="bilinear",
                                 align_corners=False)
            return self.interpolate(y, scale_factor=1.7, mode="bilinear",
                                    align_corners=True)

    tv = torchvision.models
    resnet = lambda: tv.resnet18(weights=None)
    return {
        "resnet18": (resnet, "x", [1, 3, 224, 224], False),
        "resnet18_b4": (resnet, "x", [4, 3, 224, 224], False),
        "resnet18_dyn": (resnet, "x", [2, 3, 224, 224], True),
        "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None),
                         "x", [1, 3, 224, 224], False),
        "vit": (vit, "pixel_values", [1, 3, 224, 224], False),
        "whisper_enc": (whisper, "input_features", [1, 80, 3000], False),
        # Other members of the families (--family).
        "squeezenet": (lambda: tv.squeezenet1_1(weights=None), "x",
                       [1, 3, 224, 224], False),
        "shufflenet": (lambda: tv.shufflenet_v2_x0_5(weights=None), "x",
                       [1, 3, 224, 224], False),
        "mobilenet_v3": (lambda: tv.mobilenet_v3_small(weights=None), "x",
                         [1, 3, 224, 224], False),
        "efficientnet": (lambda: tv.efficientnet_b0(weights=None), "x",
                         [1, 3, 224, 224], False),
        "regnet": (lambda: tv.regnet_x_400mf(weights=None), "x",
                   [1, 3, 224, 224], False),
        "googlenet": (lambda: tv.googlenet(weights=None, aux_logits=False,
                                           init_weights=True), "x",
                      [1, 3, 224, 224], False),
        "lraspp": (lambda: Segmentation(tv.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=21)), "x",
            [1, 3, 224, 224], False),
        "upsample_net": (UpsampleNet, "x", [1, 3, 20, 24], False),
        # More members of the families (--more).
        "resnet34": (lambda: tv.resnet34(weights=None), "x",
                     [1, 3, 224, 224], False),
        "resnet50": (lambda: tv.resnet50(weights=None), "x",
                     [1, 3, 224, 224], False),
        "resnext50": (lambda: tv.resnext50_32x4d(weights=None), "x",
                      [1, 3, 224, 224], False),
        "wide_resnet50": (lambda: tv.wide_resnet50_2(weights=None), "x",
                          [1, 3, 224, 224], False),
        "mobilenet_v3_large": (lambda: tv.mobilenet_v3_large(weights=None),
                               "x", [1, 3, 224, 224], False),
        "regnet_y": (lambda: tv.regnet_y_400mf(weights=None), "x",
                     [1, 3, 224, 224], False),
        "whisper_tiny": (lambda: whisper_sized(384, 4, 6, 80, 1500),
                         "input_features", [1, 80, 3000], False),
        "whisper_128mel": (lambda: whisper_sized(192, 2, 3, 128, 500),
                           "input_features", [1, 128, 1000], False),
        "wav2vec2": (lambda: wav2vec2("group"), "input_values", [1, 16000],
                     False),
        "wav2vec2_layer": (lambda: wav2vec2("layer"), "input_values",
                           [1, 16000], False),
        "densenet121": (lambda: tv.densenet121(weights=None), "x",
                        [1, 3, 224, 224], False),
        "convnext_tiny": (lambda: tv.convnext_tiny(weights=None), "x",
                          [1, 3, 224, 224], False),
        "mnasnet": (lambda: tv.mnasnet0_5(weights=None), "x",
                    [1, 3, 224, 224], False),
        "swin_t": (lambda: tv.swin_t(weights=None), "x", [1, 3, 224, 224],
                   False),
        "groupnorm_net": (GroupNormNet, "x", [1, 3, 64, 64], False),
        "ast": (ast, "input_values", [1, 256, 128], False),
        "vit_b_16": (vit_b_16, "x",
                     [1, 3, 224, 224], False),
    }


def calibrate(model, shape):
    """Sets every BatchNormalization's running statistics to those of one
    random batch, as training would leave them: with the defaults (mean 0,
    variance 1) activations fade layer by layer in some networks (GoogLeNet's
    output was its classifier's bias, whatever the input)."""
    import torch
    norms = [m for m in model.modules()
             if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for norm in norms:
        norm.momentum = 1.0
    model.train()
    with torch.no_grad():
        model(torch.randn([2] + shape[1:]))


def export(name, make, input_name, shape, dynamic, out, dynamo):
    import torch
    # nn.MultiheadAttention's fast path under no_grad (torchvision's ViT) is
    # aten::_native_multi_head_attention, which the TorchScript exporter
    # cannot export; eager runs the same math without it.
    torch.backends.mha.set_fastpath_enabled(False)
    torch.manual_seed(0)
    model = make()
    calibrate(model, shape)
    model.eval()
    x = torch.from_numpy(
        np.random.default_rng(1).standard_normal(shape).astype(np.float32))
    stem = name + ("_dynamo" if dynamo else "")
    path = os.path.join(out, stem + ".onnx")
    with torch.no_grad():
        expected = model(x).numpy()
        if dynamo:
            # The default exporter of torch 2.9+, at its own opset.
            shapes = ({input_name: {0: torch.export.Dim("batch")}}
                      if dynamic else None)
            torch.onnx.export(model, (x,), path, input_names=[input_name],
                              output_names=["y"], dynamic_shapes=shapes,
                              dynamo=True, external_data=False)
        else:
            axes = ({input_name: {0: "batch"}, "y": {0: "batch"}}
                    if dynamic else None)
            torch.onnx.export(model, (x,), path, opset_version=17,
                              input_names=[input_name], output_names=["y"],
                              dynamic_axes=axes, dynamo=False)
    np.save(os.path.join(out, f"{stem}.{input_name}.npy"), x.numpy())
    np.save(os.path.join(out, stem + ".expected.npy"), expected)
    print(f"{stem}: {path} ({os.path.getsize(path) // 1024} KiB), "
          f"output {expected.shape}")


def check(stem, input_name, out, build, bench):
    """fuse-run --check on the model; Fuse's largest difference from eager
    (and onnxruntime), relative to the output's largest magnitude."""
    model = os.path.join(out, stem + ".onnx")
    x = os.path.join(out, f"{stem}.{input_name}.npy")
    out_dir = os.path.join(out, stem + ".fuse")
    os.makedirs(out_dir, exist_ok=True)
    cmd = [os.path.join(build, "bin", "fuse-run"), model, "--check", "--json",
           f"--input={input_name}={x}", f"--output-dir={out_dir}",
           f"--cache-dir={os.path.join(out, 'cache')}"]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    lines = proc.stdout.strip().splitlines()
    summary = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    if not os.path.exists(os.path.join(out_dir, "y.npy")):
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        return {"model": stem, "status": "fails", "why": " | ".join(tail)}
    y = np.load(os.path.join(out_dir, "y.npy"))
    expected = np.load(os.path.join(out, stem + ".expected.npy"))
    scale = float(np.abs(expected).max())
    row = {"model": stem, "status": "passes" if proc.returncode == 0 else
           f"--check exit {proc.returncode}",
           "kernels": summary.get("kernels"),
           "seconds": round(seconds, 1),
           "vs_torch": float(np.abs(y - expected).max()) / scale}
    try:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        session = ort.InferenceSession(model, options,
                                       providers=["CPUExecutionProvider"])
        feeds = {input_name: np.load(x)}
        ort_y = session.run(None, feeds)[0]
        row["vs_ort"] = float(np.abs(y - ort_y).max()) / scale
        if bench:
            times = []
            for _ in range(bench):
                begin = time.perf_counter()
                session.run(None, feeds)
                times.append((time.perf_counter() - begin) * 1e3)
            row["ort_ms"] = round(float(np.median(times)), 2)
    except ImportError:
        pass
    if bench:
        ov_ms = openvino_ms(model, {input_name: np.load(x)}, bench)
        if ov_ms is not None:
            row["ov_f32_ms"] = ov_ms
        proc = subprocess.run(cmd[:2] + ["--json", f"--bench={bench}", cmd[4],
                                         cmd[-1]], capture_output=True, text=True)
        lines = proc.stdout.strip().splitlines()
        if lines and lines[-1].startswith("{"):
            row["fuse_ms"] = round(json.loads(lines[-1])["run_ms_median"], 2)
    # Another input of the same shape: the bundle from the cache, no compile.
    second = os.path.join(out, f"{stem}.second.npy")
    np.save(second, -np.load(x))
    proc = subprocess.run(cmd[:2] + ["--json", f"--input={input_name}={second}",
                                     cmd[-1]], capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    row["second_compiled"] = (json.loads(lines[-1]).get("compiled")
                              if lines and lines[-1].startswith("{") else None)
    row["matches"] = row["vs_torch"] <= 1e-3 and row["second_compiled"] == 0
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/vision")
    ap.add_argument("--only", default="")
    ap.add_argument("--family", action="store_true",
                    help="other models of the families: " + ", ".join(FAMILY))
    ap.add_argument("--more", action="store_true",
                    help="more models of the families: " + ", ".join(MORE))
    ap.add_argument("--bench", type=int, default=0, metavar="N",
                    help="with --check: the median of N runs on Fuse "
                         "(fuse-run --bench), onnxruntime and OpenVINO in f32 "
                         "(2 threads each)")
    ap.add_argument("--check", metavar="BUILD",
                    help="run the exported models with BUILD/bin/fuse-run "
                         "instead of exporting")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wanted = [n for n in args.only.split(",") if n] or (
        MORE if args.more else FAMILY if args.family else NAMES)
    failed = 0
    for name, (make, input_name, shape, dynamic) in models().items():
        if name not in wanted:
            continue
        for dynamo in [False, True]:
            stem = name + ("_dynamo" if dynamo else "")
            try:
                if args.check:
                    row = check(stem, input_name, args.out, args.check,
                                args.bench)
                    print(json.dumps(row), flush=True)
                    failed += not row.get("matches", False)
                else:
                    export(name, make, input_name, shape, dynamic, args.out,
                           dynamo)
            except Exception as e:  # report every model, not the first failure
                print(f"{stem}: failed: {type(e).__name__}: {e}",
                      file=sys.stderr)
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
