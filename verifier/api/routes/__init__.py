"""One router per area of the contract."""
