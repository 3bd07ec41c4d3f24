"""What each model teaches about position, in one line derived from its facts (no hand-written table).

The clauses, first match first: no position at all in some layers (NoPE), windows and chunks,
the context-extension method, partial rotary dimensions, and for plain RoPE the slow pairs that
never turn; the absolute and bias families say what happens past their table or their buckets.
"""

from __future__ import annotations

from posviz.encodings.model_bias import last_exact_distance
from posviz.encodings.model_hf import NO_POSITION
from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.model_rope_groups import never_turning_count
from posviz.encodings.models import ModelPositions


def _count(mp: ModelPositions, attention: str) -> int:
    return sum(1 for x in mp.layers if x.attention == attention)


def _scaling(spec: RopeSpec) -> str | None:
    t, f, big_l, ext = spec.rope_type, spec.factor, spec.original_max_position, spec.extended_context
    if t == "llama3":
        opts = dict(spec.options)
        fast, slow = big_l / opts["high_freq_factor"], big_l / opts["low_freq_factor"]
        if fast == slow:
            return (
                f"llama3 scaling stretches the {big_l:,}-token training context to {ext:,} with a hard cut: "
                f"pairs that turn within {fast:,.0f} tokens are kept, every slower one is divided by {f:g}"
            )
        return (
            f"llama3 scaling stretches the {big_l:,}-token training context to {ext:,}: pairs that turn within "
            f"{fast:,.0f} tokens are kept, pairs slower than {slow:,.0f} are divided by {f:g}, the ones between blended"
        )
    if t == "yarn":
        return (
            f"YaRN ×{f:g} reads {ext:,} tokens after training at {big_l:,} ({f:g} × {big_l:,}), "
            "slowing only the slow pairs"
        )
    if t == "longrope":
        return f"LongRoPE switches from short to long per-pair factors once the input passes {big_l:,} tokens"
    if t == "linear":
        return f"linear scaling divides every frequency by {f:g} (position interpolation)"
    if t == "dynamic":
        return f"dynamic NTK raises the base once the input passes {big_l:,} tokens"
    return None


def _rope_clauses(mp: ModelPositions) -> list[str]:
    n = mp.num_layers
    out = []
    for kind, says in NO_POSITION.items():
        count = sum(1 for x in mp.layers if x.attention == kind)
        if count:
            out.append(f"{count} of its {n} layers are {kind} layers, {says.split(':')[0]}")
    hybrid = sum(1 for x in mp.layers if x.attention.startswith("hybrid"))
    if hybrid:
        out.append(f"{hybrid} of its {n} layers run attention and a state space model side by side (hybrid)")
    attending = [x for x in mp.layers if x.attention not in NO_POSITION]
    nope = sum(1 for x in attending if not x.rope)
    if nope:
        which = "layers" if len(attending) == n else "attention layers"
        out.append(f"{nope} of its {len(attending)} {which} have no position encoding at all (NoPE)")
    for kind, spec in mp.ropes:
        if spec.rope_type == "proportional":
            out.append(
                f"its {kind} layers use proportional RoPE: {spec.turning_pairs} of {spec.head_dim // 2} pairs turn, "
                "at the frequencies of a full-width head, the rest never turn"
            )
    for attention, window in sorted({(x.attention, x.window) for x in mp.layers if x.window and x.attention != "conv"}):
        count = sum(1 for x in mp.layers if x.window == window and x.attention == attention)
        if attention == "chunked":
            out.append(f"{count} of {n} layers see only their own {window:,}-token chunk")
        elif count == n:
            out.append(
                f"every layer slides over {window:,} tokens, so information creeps {window - 1:,} tokens per layer "
                f"and {n} layers reach {n * (window - 1):,}"
            )
        else:
            out.append(f"{count} of {n} layers see only the last {window:,} tokens")
    specs = [spec for _, spec in mp.ropes]
    bases = sorted({s.base for s in specs})
    if len(bases) > 1:
        out.append("its layer kinds turn at different bases (" + " and ".join(f"{b:,.0f}" for b in bases) + ")")
    distinct = list(dict.fromkeys(specs))  # in order full, sliding, chunked
    for spec in distinct:
        said = _scaling(spec)
        if said and len(distinct) > 1:
            kinds = " and ".join(kind for kind, s in mp.ropes if s == spec)
            said = f"in its {kinds} layers {said}"
        if said:
            out.append(said)
    spec = specs[0] if specs else None
    if spec and spec.rotary_dim < spec.head_dim and spec.rope_type != "proportional":
        why = "the decoupled RoPE part of multi-head latent attention" if spec.mla else ("partial rotary")
        out.append(f"only {spec.rotary_dim} of each head's {spec.head_dim} query/key dimensions rotate ({why})")
    if spec and all(s.rope_type == "default" for s in specs):
        pairs = spec.rotary_dim // 2
        out.append(
            f"plain RoPE with base {spec.base:,.0f} over {spec.extended_context:,} tokens: "
            f"{never_turning_count(spec)} of its {pairs} pairs never complete a turn inside that context"
        )
    return out


def lesson(mp: ModelPositions, name: str) -> str:
    """One sentence: what this model shows about position that the others do not."""
    if mp.table is not None and mp.family == "learned":
        size = mp.table.size - mp.table.offset
        text = (
            f"learned a vector for each of its {size:,} positions: an input of {size + 1:,} tokens has no row for "
            "its last one, and nothing extrapolates"
        )
    elif mp.table is not None:
        text = (
            f"uses the fixed sin/cos table ([sin | cos] halves, not interleaved pairs) yet precomputes only "
            f"{mp.table.size:,} rows: the formula runs on, the model does not"
        )
    elif mp.t5 is not None:
        t = mp.t5
        last = last_exact_distance(t.num_buckets)
        text = (
            f"adds a learned bias per head and distance bucket: {t.num_buckets} buckets ({t.num_buckets // 2} per "
            f"direction in the encoder) give distances 0 to {last} one each, logarithmically wider ones up to "
            f"{t.max_distance}, and every distance past {t.max_distance} shares the last"
        )
        if t.per_layer_bias:
            text += "; every layer learns its own table"
    elif mp.alibi is not None:
        heads = mp.alibi.heads
        limit = f"trained at {mp.max_position:,} tokens" if mp.max_position else "no length limit in its config"
        text = f"has no position vector at all: {heads} heads each subtract a fixed slope × distance ({limit})"
    else:
        clauses = _rope_clauses(mp)
        text = "; ".join(clauses[:3]) if clauses else "uses plain RoPE"
    return f"**{name}** {text}."
