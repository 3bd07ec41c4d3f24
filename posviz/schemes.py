"""The registry: one descriptor per position scheme and one per page.

Everything that goes over the schemes or the pages reads it: ``app.py``'s navigation, the home
page's map, the compare page (its runs, properties table and links), the deck's and the tests'
URL keys, the sections drawn on demand, and the benchmark. Nothing else names a scheme.

Adding a scheme is its own files (``encodings/<key>.py``, ``figures/<key>.py``, ``ui/<key>/``,
``pages/<key>.py``) and one entry in ``SCHEMES``: the entry names its settings class, the module
that declares its on-demand sections, its benchmark case and, when it is compared, its compare
runner, properties row and link. Code is named as ``"module:attribute"`` and imported by
:func:`load`, the one place a name becomes code.

Plain data: no streamlit, no torch (a name is imported only when it is loaded).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from posviz.i18n import N_


def load(ref: str) -> Any:
    """The attribute ``ref`` names, ``"package.module:attribute"`` (``"package.module"``: the module)."""
    module, _, attribute = ref.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


@dataclass(frozen=True)
class Bench:
    """The benchmark's page case (``tools/bench.py``): the page's URL keys for length L.

    Attributes:
        lengths: the lengths L measured; ``quick``: those of ``--quick``.
        length_keys: URL keys set to L.
        text_key: a URL key set to a text of L tokens (four words and a full stop, repeated).
        fixed: other URL keys and their values.
    """

    lengths: tuple[int, ...]
    quick: tuple[int, ...]
    length_keys: tuple[str, ...] = ()
    text_key: str | None = None
    fixed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Compared:
    """How the compare page runs, describes and links a scheme (each function named ``"module:function"``).

    Attributes:
        colour: its colour in the compare page's line figures.
        run: ``(toy: posviz.encodings.compare.Toy) -> (logits (L, L), [position tensors built])``.
        row: ``(*, seq_len, dim, base, causal) -> (kind, learned or fixed, parameters, where it stops
            distinguishing distances)``, its row of the properties table.
        link: ``(*, seq_len, dim, base, seed, causal) -> {URL key: value}``, the settings of its link.
        opens: the URL path its link opens (None: its own page).
        opens_text: what the link says it opens (None: "the <short> page with these settings").
        always_causal: it sees only past keys whatever the causal setting (CoPE counts them).
        sets: the compare page's selections it is in besides ``"all"`` (keys of :data:`COMPARE_SETS`).
        softmax: its attention is the softmax of its logits; False: its runner returns its weights as a third
            tensor ``(L, L)`` (stick-breaking: rows sum to at most 1), its logits the log of them.
    """

    colour: str
    run: str
    row: str
    link: str
    opens: str | None = None
    opens_text: str | None = None
    always_causal: bool = False
    sets: tuple[str, ...] = ()
    softmax: bool = True


@dataclass(frozen=True)
class Scheme:
    """A position scheme.

    Attributes:
        key: its name in every layer and its URL path (``t5`` -> ``encodings/t5.py``,
            ``ui/t5/``, ``pages/t5.py``, ``/t5``).
        title: the page and browser-tab title.
        short: the name in legends and tables.
        paper: where it comes from.
        kind: absolute / relative / contextual, fixed or learned.
        how: one line on what it does, for the home page's map.
        icon: a Material Symbols name for the sidebar (Streamlit ships the font; nothing is fetched).
        shared_keys: the URL keys it shares with other pages (each means the same everywhere).
        page: whether it has a page of its own.
        settings: its page's settings class, ``"module:Class"`` (every URL key the page reads).
        sections: the module declaring its page's sections drawn on demand (``OnDemand``), if any.
        bench: its page's benchmark case.
        compared: how the compare page shows it; None when it is not compared there.
    """

    key: str
    title: str
    short: str
    paper: str
    kind: str
    how: str
    icon: str = "circle"
    shared_keys: tuple[str, ...] = ()
    page: bool = True
    settings: str | None = None
    sections: str | None = None
    bench: Bench | None = None
    compared: Compared | None = None


@dataclass(frozen=True)
class Page:
    """A page in the navigation: a scheme's page or one of the pages about all of them.

    ``settings``, ``sections`` and ``bench`` as for :class:`Scheme`.
    """

    key: str  # URL path ("" for home) and the file pages/<file>.py
    title: str
    icon: str
    file: str
    settings: str | None = None
    sections: str | None = None
    bench: Bench | None = None

    @property
    def path(self) -> str:
        return f"pages/{self.file}.py"


_RUN = "posviz.encodings.compare:run_"  # the compare page's runners of the schemes it ships with
_ROW = "posviz.figures.compare_properties:row_"
_LINK = "posviz.ui.compare.links:link_"


def _compared(key: str, colour: str, **more: Any) -> Compared:
    return Compared(colour, run=_RUN + key, row=_ROW + key, link=_LINK + key, **{"sets": ("core",), **more})


def _compared_in_own_files(key: str, colour: str, **more: Any) -> Compared:
    """A scheme whose compare runner, row and link live in its own modules, as ``compare_run``, ``compare_row``
    and ``compare_link`` of its encodings, figures and ui settings."""
    return Compared(
        colour,
        run=f"posviz.encodings.{key}:compare_run",
        row=f"posviz.figures.{key}:compare_row",
        link=f"posviz.ui.{key}.settings:compare_link",
        **more,
    )


# The compare page's selections of schemes: key -> what the choice says. Each scheme's entry names the
# selections it is in (``Compared.sets``); "all" holds every compared scheme.
COMPARE_SETS: dict[str, str] = {
    "core": N_("the first eight: none to CoPE"),
    "beyond": N_("beyond RoPE: the newer schemes, with none, RoPE and ALiBi to compare against"),
    "all": N_("every compared scheme (larger figures)"),
}


def _length(*keys: str, lengths: tuple[int, ...], quick: tuple[int, ...], **fixed: str) -> Bench:
    return Bench(lengths, quick, length_keys=keys, fixed=tuple(fixed.items()))


# In the order the papers appeared: the teaching order of the home page and the compare page.
# Each entry: key, title, short, paper, kind, how (the fields in order), then what differs from the defaults.
SCHEMES: tuple[Scheme, ...] = (
    Scheme("none", N_("No position"), N_("none"), "—", "—", N_("nothing: attention sees a set"), page=False,
           compared=_compared("none", "#7f7f7f", opens="",
                              opens_text=N_("the home page: why attention needs position"), sets=("core", "beyond"))),
    Scheme("sinusoidal", N_("Sinusoidal positions"), N_("sinusoidal"), N_("Vaswani et al. 2017"),
           N_("absolute, fixed"), N_("sin/cos of the position added to each token"),
           icon="waves", shared_keys=("seq_len", "dim", "base", "layout", "seed"),
           settings="posviz.ui.sinusoidal.settings:SinusoidalSettings", sections="posviz.ui.sinusoidal.texts",
           bench=_length("seq_len", lengths=(512, 131072), quick=(512,)),
           compared=_compared("sinusoidal", "#1f77b4")),
    Scheme("learned", N_("Learned absolute positions"), N_("learned absolute"), "BERT, GPT", N_("absolute, learned"),
           N_("a learned vector per position added to each token"), page=False,
           compared=_compared("learned", "#aec7e8", opens="sinusoidal",
                              opens_text=N_("the sinusoidal page (section 5) with these settings"))),
    Scheme("shaw", N_("Shaw relative positions"), "Shaw", N_("Shaw et al. 2018"), N_("relative, learned"),
           N_("a learned vector per clipped distance, in q·k"),
           icon="table_rows", shared_keys=("q_len", "k_len", "align", "dim", "seed"),
           settings="posviz.ui.shaw.settings:ShawSettings", sections="posviz.ui.shaw.texts",
           bench=_length("q_len", "k_len", lengths=(512, 131072), quick=(512,)),
           compared=_compared("shaw", "#2ca02c")),
    Scheme("skew", N_("Music Transformer skew"), N_("skew"), N_("Huang et al. 2018"), N_("relative, learned"),
           N_("Shaw's term in O(L d) memory"),
           icon="swap_horiz", shared_keys=("seq_len", "dim", "seed", "step"),
           settings="posviz.ui.skew.settings:SkewSettings",
           bench=_length("seq_len", lengths=(64, 512), quick=(64,), step="3")),
    Scheme("transformer_xl", N_("Transformer-XL relative attention"), "Transformer-XL", N_("Dai et al. 2019"),
           N_("relative, learned"), N_("content and distance terms, with global biases u and v, over a memory"),
           icon="history", shared_keys=("seq_len", "mem_len", "dim", "seed"),
           settings="posviz.ui.transformer_xl.settings:TransformerXlSettings",
           bench=_length("seq_len", lengths=(8, 64), quick=(8,)),
           compared=_compared_in_own_files("transformer_xl", "#98df8a", always_causal=True, sets=("beyond",))),
    Scheme("t5", N_("T5 relative bias"), "T5", N_("Raffel et al. 2020"), N_("relative, learned"),
           N_("a learned scalar per head and distance bucket"),
           icon="grid_on", shared_keys=("q_len", "k_len", "align", "heads", "head", "seed", "step"),
           settings="posviz.ui.t5.settings:T5Settings", sections="posviz.ui.t5.texts",
           bench=_length("q_len", "k_len", lengths=(512, 8192, 131072), quick=(512, 2048)),
           compared=_compared("t5", "#ff7f0e")),
    Scheme("rope", "RoPE", "RoPE", N_("Su et al. 2021"), N_("relative, fixed"),
           N_("rotates q and k by angles proportional to position"),
           icon="rotate_right", shared_keys=("seq_len", "dim", "base", "layout", "seed"),
           settings="posviz.ui.rope.settings:RopeSettings", sections="posviz.ui.rope.texts",
           bench=_length("seq_len", lengths=(16384, 1048576), quick=(16384,)),
           compared=_compared("rope", "#9467bd", sets=("core", "beyond"))),
    Scheme("alibi", N_("ALiBi linear biases"), "ALiBi", N_("Press et al. 2022"), N_("relative, fixed"),
           N_("a linear penalty −m·(i − j) per head on the logits"),
           icon="trending_down", shared_keys=("seq_len", "heads", "causal"),
           settings="posviz.ui.alibi.settings:AlibiSettings",
           bench=_length("seq_len", lengths=(512, 131072), quick=(512,), heads="128"),
           compared=_compared("alibi", "#d62728", sets=("core", "beyond"))),
    Scheme("kerple", N_("KERPLE kernelized biases"), "KERPLE", N_("Chi et al. 2022"), N_("relative, learned"),
           N_("a learned kernel of the distance per head, on the logits"),
           icon="show_chart", shared_keys=("heads", "seq_len", "seed"),
           settings="posviz.ui.kerple.settings:KerpleSettings",
           bench=_length("seq_len", lengths=(4096, 1048576), quick=(4096,)),
           compared=_compared_in_own_files("kerple", "#ff9896", always_causal=True, sets=("beyond",))),
    Scheme("xpos", "xPos", "xPos", N_("Sun et al. 2022"), N_("relative, fixed"),
           N_("RoPE times a per-pair decay with distance"),
           icon="blur_linear", shared_keys=("dim", "seq_len", "seed"),
           settings="posviz.ui.xpos.settings:XposSettings",
           bench=_length("seq_len", lengths=(8192, 1048576), quick=(8192,)),
           compared=_compared_in_own_files("xpos", "#e377c2", sets=("beyond",))),
    Scheme("nope", N_("NoPE and DroPE"), "NoPE", N_("Kazemnejad et al. 2023"), N_("none: the causal mask only"),
           N_("no position term: the mask lets a model count its predecessors"),
           icon="block", shared_keys=("seq_len", "dim", "base", "seed"),
           settings="posviz.ui.nope.settings:NopeSettings",
           bench=_length("seq_len", lengths=(16, 512), quick=(16,)),
           compared=_compared_in_own_files("nope", "#c7c7c7", always_causal=True, sets=("beyond",))),
    Scheme("fire", N_("FIRE functional interpolation"), "FIRE", N_("Li et al. 2023"), N_("relative, learned"),
           N_("an MLP of the distance divided by the query's own context"),
           icon="functions", shared_keys=("heads", "seq_len", "seed"),
           settings="posviz.ui.fire.settings:FireSettings",
           bench=_length("seq_len", lengths=(8192, 131072), quick=(8192,)),
           compared=_compared_in_own_files("fire", "#bcbd22", sets=("beyond",))),
    Scheme("stickbreaking", N_("Stick-breaking attention"), N_("stick-breaking"), N_("Tan et al. 2024"),
           N_("contextual, none"), N_("each key breaks off a share of what the nearer keys left"),
           icon="straighten", shared_keys=("seq_len", "dim", "seed"),
           settings="posviz.ui.stickbreaking.settings:StickbreakingSettings",
           bench=_length("seq_len", lengths=(24, 128), quick=(24,)),
           compared=_compared_in_own_files("stickbreaking", "#17becf", always_causal=True, sets=("beyond",),
                                              softmax=False)),
    Scheme("cope", N_("CoPE contextual positions"), "CoPE", N_("Golovneva et al. 2024"), N_("contextual, learned"),
           N_("positions that count gated tokens, not all tokens"),
           icon="format_list_numbered", shared_keys=("dim", "seed"),
           settings="posviz.ui.cope.settings:CopeSettings", sections="posviz.ui.cope.texts",
           bench=Bench((32, 1024, 4096), (32,), text_key="text", fixed=(("mask_after", "true"),)),
           compared=_compared("cope", "#8c564b", always_causal=True)),
)  # fmt: skip

BY_KEY: dict[str, Scheme] = {s.key: s for s in SCHEMES}
COMPARED: tuple[Scheme, ...] = tuple(s for s in SCHEMES if s.compared is not None)


def compared_in(selection: str) -> tuple[Scheme, ...]:
    """The compared schemes of the compare page's selection ``selection`` (a key of :data:`COMPARE_SETS`), in the
    registry's order."""
    if selection not in COMPARE_SETS:
        raise ValueError(f"no selection of schemes {selection!r}: choose one of {', '.join(COMPARE_SETS)}.")
    return tuple(s for s in COMPARED if s.compared and (selection == "all" or selection in s.compared.sets))


HOME = Page("", N_("Why position?"), "home", "home")
COMPARE = Page(
    "compare", N_("Compare every scheme"), "compare", "compare",
    settings="posviz.ui.compare.settings:CompareSettings",
    bench=_length("seq_len", lengths=(32, 64), quick=(32,)),
)  # fmt: skip
MODELS = Page(
    "models", N_("Real models"), "model_training", "models",
    settings="posviz.ui.models.settings:ModelsSettings",
    # L: the token whose masks and reach are drawn, in Llama 4 Scout's 10,485,760-token context
    bench=_length("position", lengths=(8192, 10485759), quick=(8192,), model="llama-4-scout"),
)  # fmt: skip
VISION = Page(
    "vision", N_("Images and video"), "image", "vision",
    settings="posviz.ui.vision.settings:VisionSettings", sections="posviz.ui.vision.texts",
    # L: a video's temporal patches (at most 64) after a 16 x 16-token image, every section open
    bench=_length("frames", lengths=(6, 64), quick=(6,), image_rows="16", image_cols="16"),
)  # fmt: skip
PAGES: tuple[Page, ...] = (
    HOME,
    *(Page(s.key, s.title, s.icon, s.key, s.settings, s.sections, s.bench) for s in SCHEMES if s.page),
    COMPARE,
    MODELS,
    VISION,
)


def page_of(key: str) -> Page:
    """The page at URL path ``key`` ("" for home)."""
    for page in PAGES:
        if page.key == key:
            return page
    raise KeyError(f"no page at /{key}")


def settings_class(key: str) -> Any:
    """The settings class of the page at URL path ``key``, as its entry names it (None: it has none, or no page)."""
    page = next((p for p in PAGES if p.key == key), None)
    return load(page.settings) if page is not None and page.settings else None
