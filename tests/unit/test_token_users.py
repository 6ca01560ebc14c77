"""Who vouches for the user: ``user_for`` keeps a token bound to users (``server.tokens``) to
them and trusts the named user only for unbound tokens and the local operator."""

import pytest

from remem.access import ScopeError
from remem.config import TokenGrant
from remem.server.identity import user_for

ONE = TokenGrant(agent="bot", users=("ann",))
TWO = TokenGrant(agent="bot", users=("ann", "bo"))
UNBOUND = TokenGrant(agent="bot")


@pytest.mark.parametrize(
    ("grant", "named", "acting_for"),
    [
        (None, "anyone", "anyone"),  # the local operator
        (None, None, None),
        (UNBOUND, "anyone", "anyone"),  # the caller vouches
        (UNBOUND, None, None),
        (ONE, None, "ann"),  # its one user
        (ONE, "ann", "ann"),
        (TWO, "bo", "bo"),
        (TWO, None, None),  # several: none is assumed
    ],
)
def test_the_user_a_request_acts_for(grant, named, acting_for):
    assert user_for(grant, named) == acting_for


@pytest.mark.parametrize(("grant", "named"), [(ONE, "bo"), (ONE, "Ann"), (TWO, "cy"), (TWO, "")])
def test_a_bound_token_cannot_be_widened(grant, named):
    with pytest.raises(ScopeError, match=r"this token acts only for user 'ann'"):
        user_for(grant, named)
