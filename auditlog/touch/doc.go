package touch
