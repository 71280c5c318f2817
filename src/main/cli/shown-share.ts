/**
 * The share of a run's (or a session's) total a row of the CLI's text output must hold to be
 * listed unless asked for all: cg_annotate's default threshold, 0.1%. Its own module so that a
 * light command (`stride info`) need not load the report tables' to know it.
 */
export const SHOWN_SHARE = 0.001
