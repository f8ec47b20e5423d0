"""The interface: the commands, the standalone console script (its argparse front end), the
Poetry plugin and its hooks on Poetry's own commands. Only the plugin and its command
adapter import cleo; besides this folder, only the Poetry backend (which runs Poetry's own
lock) imports Poetry."""
