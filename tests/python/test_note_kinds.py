"""The run's notes (asc_sim_note_get) are keyed by AscNoteKind, whose values pyasc reads from
abi.json (tools/gen_abi.c): every kind but NONE has a warning text, and no text names a kind C
does not define."""
from pyasc import abi
from pyasc.runtime import launch


def test_every_note_kind_has_a_text():
    kinds = set(abi.ENUMS["AscNoteKind"]) - {"NONE"}
    assert kinds and kinds == set(launch._NOTE_TEXT)


def test_note_names_from_abi():
    assert launch._NOTE_NAME == {v: k for k, v in abi.ENUMS["AscNoteKind"].items()}
