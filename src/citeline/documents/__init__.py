"""Loading files into text with structure, and cutting them into chunks."""
