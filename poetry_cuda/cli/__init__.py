"""The interface: cleo commands, the standalone console script, the Poetry plugin and its hooks
on Poetry's own commands. Only this folder imports cleo; besides it, only the Poetry backend
(which runs Poetry's own lock) imports Poetry."""
