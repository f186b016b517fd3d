use gpucosim::cli::{command, parse_filter};
use tracing::Level;

/// clap's own checks of the definitions (ids, `requires`, conflicts and
/// the groups of the flattened arguments), which a release build skips.
#[test]
fn the_command_line_is_well_formed() {
    command().debug_assert();
}

/// GPUCOSIM_LOG: levels and `TARGET=LEVEL`, the most specific target
/// deciding; a word that is neither is an error naming it.
#[test]
fn log_filters_parse_or_say_what_is_wrong() {
    let f = parse_filter("warn, gpucosim::rtlbuild=trace,gpucosim=DEBUG,").unwrap();
    let on = |t: &str, l: Level| f.would_enable(t, &l);
    assert!(on("gpucosim::rtlbuild", Level::TRACE));
    assert!(on("gpucosim::regress", Level::DEBUG) && !on("gpucosim::regress", Level::TRACE));
    assert!(on("gpucosim_tb", Level::DEBUG), "a target is a prefix");
    assert!(on("other", Level::WARN) && !on("other", Level::INFO));
    let only = parse_filter("gpucosim=info").unwrap();
    assert!(!only.would_enable("other", &Level::ERROR));
    assert!(!parse_filter("").unwrap().would_enable("x", &Level::ERROR));
    for (spec, err) in [
        ("wran", "`wran` is not a level (off, error, warn, info, debug, trace)"),
        ("gpucosim=loud", "`loud` is not a level (off, error, warn, info, debug, trace)"),
        (
            "nonsense[filter]=info",
            "`nonsense[filter]` in `nonsense[filter]=info` is not a target (a Rust path such as gpucosim::rtlbuild)",
        ),
        ("=debug", "`` in `=debug` is not a target (a Rust path such as gpucosim::rtlbuild)"),
        ("a::=debug", "`a::` in `a::=debug` is not a target (a Rust path such as gpucosim::rtlbuild)"),
    ] {
        assert_eq!(parse_filter(spec).err().as_deref(), Some(err), "{spec}");
    }
}
