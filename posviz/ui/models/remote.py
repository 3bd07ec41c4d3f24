"""A model opened by its Hub id on the models page: its config.json's bytes, or the notice that says why not.

A Hub model is handled like an upload whose bytes came from the Hub: its figures and tables take
``slug`` the id and ``upload`` the bytes (``sides.load`` names the model after it). The bytes come from
:mod:`posviz.hub`'s cache, shared by every session, so a class opening one link sends one request.
"""

from __future__ import annotations

from posviz.hub import HubError, fetch_config, looks_like_hub_id, parse_model_ref
from posviz.i18n import N_, _
from posviz.ui.params import plain

UPLOAD_HINT = N_("download its config.json and upload it under **Your own config** in the sidebar")
# One sentence per HubError kind: what happened and what to do (markdown-safe; the id is escaped, {hint} is
# UPLOAD_HINT).
NOTICES = {
    "offline": N_("This server has no access to the Hugging Face Hub, so it cannot open a model by its id: {hint}."),
    "timeout": N_("The Hugging Face Hub did not answer within 10 s. Try again in a moment, or {hint}."),
    "gated": N_(
        "{id} is gated or private on the Hub: its files open only to accounts its owners allow. If you have "
        "access, {hint}."
    ),
    "missing": N_(
        "There is no model {id} on the Hub (or it is private). Check the id: namespace/name, as in Qwen/Qwen3-8B."
    ),
    "revision": N_("{id} has no such revision on the Hub (a branch, tag or commit name)."),
    "no_config": N_("{id} has no config.json on the Hub, so posviz has nothing to read."),
    "too_big": N_("{id}'s config.json is larger than 256 KiB, far beyond any real config.json: not read."),
    "invalid": N_("{id} is not a Hub model id."),
    "error": N_("The Hub could not give {id}'s config.json ({why})."),
}


def is_hub(ref: str) -> bool:
    """Whether a model setting names a Hub id (``namespace/name[@revision]``) rather than a shipped config."""
    return looks_like_hub_id(ref)


def hub_bytes(ref: str) -> bytes:
    """The config.json of the Hub model ``ref`` (cached for every session).

    Raises:
        HubError: why it could not be had.
    """
    return fetch_config(parse_model_ref(ref))


def notice(ref: str, error: HubError) -> str:
    """The page's sentence for a Hub failure (markdown-safe)."""
    text = _(NOTICES.get(error.kind, NOTICES["error"]))
    return text.format(id=f"**{plain(ref)}**", why=plain(str(error)), hint=_(UPLOAD_HINT))


def unreadable(ref: str, why: str) -> str:
    """The sentence for a Hub config.json that was fetched but could not be read (``why``: markdown-safe)."""
    return _("The Hub's config.json of {id} was not read: {why}").format(id=f"**{plain(ref)}**", why=why)
