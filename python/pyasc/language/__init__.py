"""The kernel language: dtypes, enums, params records, tensors/queues and the asc.* functions."""
