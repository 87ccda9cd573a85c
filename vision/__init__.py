"""Camera recognition: a photo of the table to a Snapshot."""
