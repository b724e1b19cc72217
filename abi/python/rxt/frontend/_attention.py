"""Converters of torch.nn's attention modules, which torch.fx keeps whole (leaf modules):
nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerEncoder, composed of rxt ops
in the order torch 1.13 computes them (F.multi_head_attention_forward: the packed input
projection, q scaled by 1/sqrt(head_dim) before q k^T, softmax, dropout, the output
projection), their parameters the modules' own by qualified name."""
import math

import torch.nn as nn

from ._context import Unsupported
from ._nn_ops import layer_norm_module, linear
from ._registry import FUNCTIONS, MODULES, converts_module


def _mask_bias(cx, mask, like):
    """An additive mask: a float mask as it is, a bool one as -inf where True."""
    if cx.dtype(mask) == "bool":
        dtype = cx.dtype(like)
        return cx.op("where", [mask, cx.scalar(float("-inf"), dtype), cx.scalar(0.0, dtype)])
    return mask


def _attention(cx, module, name, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
               average_attn_weights=True):
    if module.bias_k is not None or module.add_zero_attn:
        raise Unsupported("MultiheadAttention with add_bias_kv or add_zero_attn")
    if not module._qkv_same_embed_dim:
        raise Unsupported("MultiheadAttention with kdim or vdim other than embed_dim")
    if cx.ndim(query) != 3:
        raise Unsupported("MultiheadAttention on unbatched input")
    heads, embed = module.num_heads, module.embed_dim
    head_dim = embed // heads
    to_batch_first = (lambda x: x) if module.batch_first else \
        (lambda x: cx.op("permute_dims", [x], axes=[1, 0, 2]))
    q_in, k_in, v_in = to_batch_first(query), to_batch_first(key), to_batch_first(value)
    weight = cx.value_of(f"{name}.in_proj_weight")
    bias = cx.value_of(f"{name}.in_proj_bias") if module.in_proj_bias is not None else None
    batch, length = cx.static_dims(q_in, "attention")[:2]
    source = cx.static_dims(k_in, "attention")[1]
    if query is key and key is value:  # self-attention: one projection, split in three
        qkv = linear(cx, q_in, weight, bias)
        parts = cx.op("split", [qkv], sections=3, axis=2)
        q, k, v = (cx.item(parts, i) for i in range(3))
    else:
        def project(x, i):
            w = cx.op("strided_slice", [weight], axes=[0], begin=[i * embed], end=[(i + 1) * embed])
            b = None if bias is None else cx.op("strided_slice", [bias], axes=[0], begin=[i * embed],
                                                end=[(i + 1) * embed])
            return linear(cx, x, w, b)
        q, k, v = project(q_in, 0), project(k_in, 1), project(v_in, 2)

    def heads_first(x, n, axes):
        return cx.op("permute_dims", [cx.op("reshape", [x, cx.shape_value([batch, n, heads, head_dim])])], axes=axes)

    dtype = cx.dtype(q)
    q = cx.op("divide", [heads_first(q, length, [0, 2, 1, 3]), cx.scalar(math.sqrt(head_dim), dtype)])
    scores = cx.op("matmul", [q, heads_first(k, source, [0, 2, 3, 1])])  # (batch, heads, length, source)
    if attn_mask is not None:
        mask = _mask_bias(cx, attn_mask, q)
        if cx.ndim(mask) == 3:  # (batch * heads, length, source)
            mask = cx.op("reshape", [mask, cx.shape_value([batch, heads, length, source])])
        scores = cx.op("add", [scores, mask])
    if key_padding_mask is not None:  # (batch, source): True (or the float) masks a key
        padding = cx.op("reshape", [_mask_bias(cx, key_padding_mask, q), cx.shape_value([batch, 1, 1, source])])
        scores = cx.op("add", [scores, padding])
    weights = cx.op("softmax", [scores], axis=3)
    dropped = cx.dropout(weights, module.dropout)
    out = cx.op("matmul", [dropped, heads_first(v, source, [0, 2, 1, 3])])
    out = cx.op("reshape", [cx.op("permute_dims", [out], axes=[0, 2, 1, 3]), cx.shape_value([batch, length, embed])])
    out = linear(cx, out, cx.value_of(f"{name}.out_proj.weight"),
                 cx.value_of(f"{name}.out_proj.bias") if module.out_proj.bias is not None else None)
    out = to_batch_first(out)  # back to (length, batch, embed) when not batch_first
    if not need_weights:
        return out, None
    if average_attn_weights:
        weights = cx.op("mean", [weights], axis=[1])
    return out, weights


@converts_module(nn.MultiheadAttention)
def multihead_attention(cx, module, name, query, key, value, key_padding_mask=None, need_weights=True,
                        attn_mask=None, average_attn_weights=True):
    return _attention(cx, module, name, query, key, value, key_padding_mask, need_weights, attn_mask,
                      average_attn_weights)


def _activation(cx, module, name, x):
    activation = module.activation
    if isinstance(activation, nn.Module):
        converter = MODULES.get(type(activation))
        if converter is None:
            raise Unsupported(f"TransformerEncoderLayer activation {type(activation).__name__}")
        return converter(cx, activation, f"{name}.activation", x)
    converter = FUNCTIONS.get(activation)
    if converter is None:
        raise Unsupported(f"TransformerEncoderLayer activation {getattr(activation, '__name__', activation)}")
    return converter(cx, x)


@converts_module(nn.TransformerEncoderLayer)
def transformer_encoder_layer(cx, module, name, src, src_mask=None, src_key_padding_mask=None, is_causal=None):
    def self_attention(x):
        out, _ = _attention(cx, module.self_attn, f"{name}.self_attn", x, x, x, src_key_padding_mask,
                            need_weights=False, attn_mask=src_mask)
        return cx.dropout(out, module.dropout1.p)

    def feed_forward(x):
        hidden = linear(cx, x, cx.value_of(f"{name}.linear1.weight"), cx.value_of(f"{name}.linear1.bias"))
        hidden = cx.dropout(_activation(cx, module, name, hidden), module.dropout.p)
        out = linear(cx, hidden, cx.value_of(f"{name}.linear2.weight"), cx.value_of(f"{name}.linear2.bias"))
        return cx.dropout(out, module.dropout2.p)

    def norm(which, x):
        return layer_norm_module(cx, getattr(module, which), f"{name}.{which}", x)

    x = src
    if module.norm_first:
        x = cx.op("add", [x, self_attention(norm("norm1", x))])
        return cx.op("add", [x, feed_forward(norm("norm2", x))])
    x = norm("norm1", cx.op("add", [x, self_attention(x)]))
    return norm("norm2", cx.op("add", [x, feed_forward(x)]))


@converts_module(nn.TransformerEncoder)
def transformer_encoder(cx, module, name, src, mask=None, src_key_padding_mask=None, is_causal=None):
    x = src
    for i, layer in enumerate(module.layers):
        x = transformer_encoder_layer(cx, layer, f"{name}.layers.{i}", x, mask, src_key_padding_mask)
    if module.norm is not None:
        x = layer_norm_module(cx, module.norm, f"{name}.norm", x)
    return x
