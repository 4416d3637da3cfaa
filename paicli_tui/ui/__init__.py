"""Textual user interface: screens, widgets and modals that render core events."""
