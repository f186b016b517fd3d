use gpucosim::cache::*;
use std::time::{Duration, SystemTime};

#[test]
fn names_give_unit_profile_and_flavour() {
    assert_eq!(
        parse_name("lds-gfx11-quick-2b0fdf8cc0eeaaaf"),
        Some(("lds".into(), "gfx11".into(), "quick".into()))
    );
    assert_eq!(
        parse_name("ta-gfx9-trace-bare-0123456789abcdef"),
        Some(("ta".into(), "gfx9".into(), "opt trace bare".into()))
    );
    assert_eq!(
        parse_name("waitcnt-gfx9-cov-quick-0123456789abcdef"),
        Some(("waitcnt".into(), "gfx9".into(), "quick coverage".into()))
    );
    assert_eq!(parse_name("ta-gfx9-0123"), None);
    assert_eq!(parse_name("notes-0123456789abcdef"), None);
    assert_eq!(parse_name("ta-gfx9-odd-0123456789abcdef"), None);
}

#[test]
fn sizes_and_ages_read_well() {
    assert_eq!(human_bytes(812), "812 B");
    assert_eq!(human_bytes(142_737_408), "136.1 MiB");
    let now = SystemTime::now();
    let ago = |s| Some(now - Duration::from_secs(s));
    assert_eq!(human_age(ago(5), now), "just now");
    assert_eq!(human_age(ago(600), now), "10 min ago");
    assert_eq!(human_age(ago(7200), now), "2 h ago");
    assert_eq!(human_age(ago(86400 * 3), now), "3 days ago");
}

/// A build's directory is never taken for a dead build's, even while
/// its lock is being taken: another process sweeps the directory over
/// and over while builds start in it.
#[test]
fn a_starting_build_is_never_swept_away() {
    let parent = tempfile::tempdir().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sweeper = {
        let (dir, stop) = (parent.path().to_path_buf(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                remove_stale(&dir, ".build-");
            }
        })
    };
    let mut lost = 0;
    for _ in 0..3000 {
        let tmp = tempfile::Builder::new()
            .prefix(".build-")
            .tempdir_in(parent.path())
            .unwrap();
        let lock = BuildLock::take(tmp.path());
        if lock.is_err() || !tmp.path().join(BuildLock::NAME).is_file() {
            lost += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    sweeper.join().unwrap();
    assert_eq!(lost, 0, "builds whose directory was swept away");
}
