"""Pure statistics: arrays in, frozen results out. No I/O, no formatting, no global RNG."""
