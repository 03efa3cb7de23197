"""The review rules: UNS901 (review markers left) and UNS902 (unused ``noqa``)."""
