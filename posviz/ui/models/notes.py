"""What each model teaches about position, in one line derived from its facts (no hand-written table).

The clauses, first match first: no position at all in some layers (NoPE), windows and chunks,
the context-extension method, partial rotary dimensions, and for plain RoPE the slow pairs that
never turn; the absolute and bias families say what happens past their table or their buckets.
"""

from __future__ import annotations

import re

from posviz.encodings.model_bias import last_exact_distance
from posviz.encodings.model_hf import NO_POSITION
from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.model_rope_groups import never_turning_count
from posviz.encodings.models import ModelPositions
from posviz.i18n import _


def _count(mp: ModelPositions, attention: str) -> int:
    return sum(1 for x in mp.layers if x.attention == attention)


def _scaling(spec: RopeSpec) -> str | None:
    t, f, big_l, ext = spec.rope_type, spec.factor, spec.original_max_position, spec.extended_context
    if t == "llama3":
        opts = dict(spec.options)
        fast, slow = big_l / opts["high_freq_factor"], big_l / opts["low_freq_factor"]
        if fast == slow:
            return _(
                "llama3 scaling stretches the {big_l:,}-token training context to {ext:,} with a hard cut: "
                "pairs that turn within {fast:,.0f} tokens are kept, every slower one is divided by {f:g}"
            ).format(big_l=big_l, ext=ext, fast=fast, f=f)
        return _(
            "llama3 scaling stretches the {big_l:,}-token training context to {ext:,}: pairs that turn within "
            "{fast:,.0f} tokens are kept, pairs slower than {slow:,.0f} are divided by {f:g}, the ones between blended"
        ).format(big_l=big_l, ext=ext, fast=fast, slow=slow, f=f)
    if t == "yarn":
        return _(
            "YaRN ×{f:g} reads {ext:,} tokens after training at {big_l:,} ({f:g} × {big_l:,}), "
            "slowing only the slow pairs"
        ).format(f=f, ext=ext, big_l=big_l)
    if t == "longrope":
        return _("LongRoPE switches from short to long per-pair factors once the input passes {big_l:,} tokens").format(
            big_l=big_l
        )
    if t == "linear":
        return _("linear scaling divides every frequency by {f:g} (position interpolation)").format(f=f)
    if t == "dynamic":
        return _("dynamic NTK raises the base once the input passes {big_l:,} tokens").format(big_l=big_l)
    return None


def _rope_clauses(mp: ModelPositions) -> list[str]:
    n = mp.num_layers
    out = []
    for kind, says in NO_POSITION.items():
        count = sum(1 for x in mp.layers if x.attention == kind)
        if count:
            what = re.split("[:：]", _(says))[0]
            out.append(
                _("{count} of its {n} layers are {kind} layers, {what}").format(count=count, n=n, kind=kind, what=what)
            )
    hybrid = sum(1 for x in mp.layers if x.attention.startswith("hybrid"))
    if hybrid:
        out.append(
            _("{hybrid} of its {n} layers run attention and a state space model side by side (hybrid)").format(
                hybrid=hybrid, n=n
            )
        )
    attending = [x for x in mp.layers if x.attention not in NO_POSITION]
    nope = sum(1 for x in attending if not x.rope)
    if nope:
        which = (
            _("{nope} of its {n} layers have no position encoding at all (NoPE)")
            if len(attending) == n
            else _("{nope} of its {n} attention layers have no position encoding at all (NoPE)")
        )
        out.append(which.format(nope=nope, n=len(attending)))
    for kind, spec in mp.ropes:
        if spec.rope_type == "proportional":
            out.append(
                _(
                    "its {kind} layers use proportional RoPE: {turning} of {pairs} pairs turn, "
                    "at the frequencies of a full-width head, the rest never turn"
                ).format(kind=kind, turning=spec.turning_pairs, pairs=spec.head_dim // 2)
            )
    for attention, window in sorted({(x.attention, x.window) for x in mp.layers if x.window and x.attention != "conv"}):
        count = sum(1 for x in mp.layers if x.window == window and x.attention == attention)
        if attention == "chunked":
            out.append(
                _("{count} of {n} layers see only their own {window:,}-token chunk").format(
                    count=count, n=n, window=window
                )
            )
        elif count == n:
            out.append(
                _(
                    "every layer slides over {window:,} tokens, so information creeps {step:,} tokens per layer "
                    "and {n} layers reach {reach:,}"
                ).format(window=window, step=window - 1, n=n, reach=n * (window - 1))
            )
        else:
            out.append(
                _("{count} of {n} layers see only the last {window:,} tokens").format(count=count, n=n, window=window)
            )
    specs = [spec for _kind, spec in mp.ropes]
    bases = sorted({s.base for s in specs})
    if len(bases) > 1:
        listed = _(" and ").join(f"{b:,.0f}" for b in bases)
        out.append(_("its layer kinds turn at different bases ({bases})").format(bases=listed))
    distinct = list(dict.fromkeys(specs))  # in order full, sliding, chunked
    for spec in distinct:
        said = _scaling(spec)
        if said and len(distinct) > 1:
            kinds = _(" and ").join(kind for kind, s in mp.ropes if s == spec)
            said = _("in its {kinds} layers {said}").format(kinds=kinds, said=said)
        if said:
            out.append(said)
    spec = specs[0] if specs else None
    if spec and spec.rotary_dim < spec.head_dim and spec.rope_type != "proportional":
        why = _("the decoupled RoPE part of multi-head latent attention") if spec.mla else _("partial rotary")
        out.append(
            _("only {rotary} of each head's {head} query/key dimensions rotate ({why})").format(
                rotary=spec.rotary_dim, head=spec.head_dim, why=why
            )
        )
    if spec and all(s.rope_type == "default" for s in specs):
        pairs = spec.rotary_dim // 2
        out.append(
            _(
                "plain RoPE with base {base:,.0f} over {context:,} tokens: "
                "{never} of its {pairs} pairs never complete a turn inside that context"
            ).format(base=spec.base, context=spec.extended_context, never=never_turning_count(spec), pairs=pairs)
        )
    return out


def lesson(mp: ModelPositions, name: str) -> str:
    """One sentence: what this model shows about position that the others do not."""
    if mp.table is not None and mp.family == "learned":
        size = mp.table.size - mp.table.offset
        text = _(
            "learned a vector for each of its {size:,} positions: an input of {longer:,} tokens has no row for "
            "its last one, and nothing extrapolates"
        ).format(size=size, longer=size + 1)
    elif mp.table is not None:
        text = _(
            "uses the fixed sin/cos table ([sin | cos] halves, not interleaved pairs) yet precomputes only "
            "{rows:,} rows: the formula runs on, the model does not"
        ).format(rows=mp.table.size)
    elif mp.t5 is not None:
        t = mp.t5
        last = last_exact_distance(t.num_buckets)
        text = _(
            "adds a learned bias per head and distance bucket: {buckets} buckets ({half} per "
            "direction in the encoder) give distances 0 to {last} one each, logarithmically wider ones up to "
            "{max_distance}, and every distance past {max_distance} shares the last"
        ).format(buckets=t.num_buckets, half=t.num_buckets // 2, last=last, max_distance=t.max_distance)
        if t.per_layer_bias:
            text += _("; every layer learns its own table")
    elif mp.alibi is not None:
        heads = mp.alibi.heads
        limit = (
            _("trained at {tokens:,} tokens").format(tokens=mp.max_position)
            if mp.max_position
            else _("no length limit in its config")
        )
        text = _(
            "has no position vector at all: {heads} heads each subtract a fixed slope × distance ({limit})"
        ).format(heads=heads, limit=limit)
    else:
        clauses = _rope_clauses(mp)
        text = _("; ").join(clauses[:3]) if clauses else _("uses plain RoPE")
    return _("**{name}** {text}.").format(name=name, text=text)
