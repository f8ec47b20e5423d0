"""The package indexes' own listings: fetching a page within limits, and reading its wheels."""
