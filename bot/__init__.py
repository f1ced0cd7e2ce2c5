"""The discord.py adapter: thin commands and views over rules/, renderer/ and store/."""
