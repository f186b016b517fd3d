use gpucosim_model::Profile;
use gpucosim_tb::run::*;
use gpucosim_tb::testbench::Testbench;
use gpucosim_tb::units::lds::LdsTestbench;
use gpucosim_tb::units::ta::TaTestbench;
use gpucosim_tb::units::waitcnt::WaitcntTestbench;

/// FNV-1a over the JSON of the first 600 transactions of seeds 1 and 2
/// of stimulus version `version` on every profile, with the default
/// knobs, each stress variant's and the extra knob sets given.
fn stream_hash<B: Testbench>(version: u32, extra: &[&[(&str, &str)]]) -> u64 {
    let mut sets: Vec<Vec<(String, String)>> = vec![Vec::new()];
    let own = |kv: &[(&str, &str)]| {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>()
    };
    sets.extend(B::variants().iter().map(|v| own(v.knobs)));
    sets.extend(extra.iter().map(|kv| own(kv)));
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for profile in Profile::all() {
        for knobs in &sets {
            for seed in [1, 2] {
                for t in fresh_txns::<B>(version, profile, seed, knobs, 600).unwrap() {
                    for b in serde_json::to_vec(&t).unwrap() {
                        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
                    }
                }
            }
        }
    }
    h
}

/// (ta, lds, waitcnt) stream hashes of `version`.
fn hashes(version: u32) -> [u64; 3] {
    let ta = stream_hash::<TaTestbench>(
        version,
        &[&[
            ("format_pct", "50"),
            ("mtbuf_pct", "50"),
            ("edge_pct", "100"),
            ("wrap_pct", "100"),
            ("misalign_pct", "100"),
            ("stall_pct", "100"),
            ("odd_encoding_pct", "100"),
            ("invalid_format_pct", "100"),
            ("exec_zero_pct", "50"),
        ]],
    );
    let lds = stream_hash::<LdsTestbench>(
        version,
        &[
            &[("exec", "random"), ("w_permute", "100")],
            &[
                ("exec", "sparse"),
                ("wrap", "100"),
                ("misalign_dword", "100"),
            ],
            &[("exec", "upper"), ("stride", "3"), ("window", "100")],
            &[
                ("exec", "full"),
                ("stride", "33"),
                ("range_edge", "100"),
                ("base", "100"),
            ],
        ],
    );
    [ta, lds, stream_hash::<WaitcntTestbench>(version, &[])]
}

/// Every stimulus version draws the stream it always drew: bundles and
/// seeds recorded under it replay exactly. A deliberate change of a
/// generator is a new version (`STIMULUS_VERSION`), with its own line
/// here; the old one stays.
#[test]
fn each_stimulus_version_draws_its_recorded_stream() {
    let want: &[(u32, [u64; 3])] = &[
        (
            1,
            [
                0x03c4_f9c4_4452_f830,
                0x277c_2a36_a820_2001,
                0xaba3_cbb9_4c3b_62c0,
            ],
        ),
        (
            2,
            [
                0x404b_d56f_09d1_cbc7,
                0x2842_12f4_df26_f965,
                0xaba3_cbb9_4c3b_62c0,
            ],
        ),
        (
            3,
            [
                0xee97_7de1_39cc_f754,
                0xbdcc_31f1_a156_5b37,
                0xaba3_cbb9_4c3b_62c0,
            ],
        ),
    ];
    assert_eq!(want.len() as u32, gpucosim_tb::STIMULUS_VERSION);
    for (v, w) in want {
        let got = hashes(*v);
        assert_eq!(
            &got,
            w,
            "stimulus version {v} draws another stream than it did (got {got:#018x?}): a deliberate change is a new version"
        );
    }
}
