"""Every figure: the machine's, the cards', the studies'. Imported by nothing below it."""
