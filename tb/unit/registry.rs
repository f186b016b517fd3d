//! The tests `units!` generates over every unit, as the crate's own
//! per-unit code is generated (`gpucosim_tb::units!`).

macro_rules! registry_tests {
    ([] $($unit:ident => $Tb:ident,)*) => {
        use gpucosim_tb::testbench::Testbench;

        /// Each unit's knob table names every field of its knobs, in
        /// their order; the defaults, every value at either end of each
        /// range and the stress variants are accepted; one past either
        /// end is refused naming the knob and its range.
        #[test]
        fn each_units_knob_table_is_its_knobs() {
            $({
                type B = gpucosim_tb::units::$unit::$Tb;
                let defaults = serde_json::to_value(
                    <<B as Testbench>::Knobs as Default>::default(),
                )
                .unwrap();
                let fields: Vec<&str> =
                    defaults.as_object().unwrap().keys().map(|k| k.as_str()).collect();
                let names: Vec<&str> = B::KNOBS.iter().map(|k| k.name).collect();
                let mut sorted = names.clone();
                sorted.sort();
                let mut fsorted = fields.clone();
                fsorted.sort();
                assert_eq!(sorted, fsorted, "unit {}", stringify!($unit));
                gpucosim_tb::run::parse_knobs::<B>(&[]).unwrap();
                for v in <B as Testbench>::variants() {
                    let pairs: Vec<(String, String)> =
                        v.knobs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                    gpucosim_tb::run::parse_knobs::<B>(&pairs).unwrap();
                }
                for k in B::KNOBS {
                    let one = |v: String| gpucosim_tb::run::parse_knobs::<B>(&[(k.name.to_string(), v)]);
                    match k.values {
                        gpucosim_tb::testbench::KnobValues::Int(lo, hi) => {
                            for bad in [lo - 1, hi + 1] {
                                let e = one(bad.to_string()).unwrap_err().to_string();
                                assert!(
                                    e.contains(k.name) && e.contains(&format!("{lo}..={hi}")),
                                    "{e}"
                                );
                            }
                            // An end may break a rule between knobs
                            // (e.g. `lat_min` above `lat_max`), which
                            // names the knob too.
                            for good in [lo, hi] {
                                if let Err(e) = one(good.to_string()) {
                                    assert!(e.to_string().contains(k.name), "{e}");
                                }
                            }
                            let e = one("x".into()).unwrap_err().to_string();
                            assert!(e.contains(k.name), "{e}");
                        }
                        gpucosim_tb::testbench::KnobValues::Real(..) => {}
                        gpucosim_tb::testbench::KnobValues::Word(ws) => {
                            for w in ws {
                                one(w.to_string()).unwrap();
                            }
                            let e = one("nonsense".into()).unwrap_err().to_string();
                            assert!(e.contains(k.name) && e.contains(ws[0]), "{e}");
                        }
                    }
                }
            })*
        }

        /// A unit's module name, its testbench's name and its port
        /// table's name are one name.
        #[test]
        fn each_unit_is_named_once() {
            $(
                assert_eq!(<gpucosim_tb::units::$unit::$Tb as Testbench>::UNIT, stringify!($unit));
                assert_eq!(<gpucosim_tb::units::$unit::$Tb as Testbench>::table().unit, stringify!($unit));
            )*
        }
    };
}

gpucosim_tb::units!(@local registry_tests []);
