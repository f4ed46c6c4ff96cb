"""Bad input raises a typed exception with the library's message, never a crash."""

import pytest

import facedown


def test_exceptions_share_one_base():
    for cls in (facedown.ProtocolError, facedown.AnalysisError, facedown.SearchError,
                facedown.DealError, facedown.CompareError):
        assert issubclass(cls, facedown.FacedownError)


def test_a_misspelt_name_suggests_the_builtin():
    with pytest.raises(facedown.ProtocolError, match="did you mean `five-card-trick`"):
        facedown.analyze("five-card-trik")


def test_a_parse_error_shows_the_line_and_a_caret():
    with pytest.raises(facedown.ProtocolError) as err:
        facedown.analyze("protocol broken\nfoo bar\n")
    text = str(err.value)
    assert "line 2, column 1" in text and "foo bar" in text and "unknown keyword" in text


@pytest.mark.parametrize("bits", ["1", "1,0,1", "2,0", [0, 3]])
def test_input_bits_of_the_wrong_shape_raise_value_error(bits):
    with pytest.raises(ValueError):
        facedown.trace("five-card-trick", input=bits)


def test_truncated_and_binary_inputs_raise():
    with pytest.raises(facedown.ProtocolError):
        facedown.analyze("protocol x\ninputs a\nlayout a0 a1\nturn")
    with pytest.raises(facedown.ProtocolError):
        facedown.analyze("protocol \x00\x01\n\x02")


def test_a_missing_path_is_reported_as_unreadable_not_parsed():
    with pytest.raises(facedown.ProtocolError, match="neither a built-in protocol name nor a readable file"):
        facedown.analyze("protocols/missing.cards")
