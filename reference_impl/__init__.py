"""Reference implementation of the three interfaces; never imports the suite."""
