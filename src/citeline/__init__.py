"""citeline: answers from your own documents, with every citation verified by code."""
