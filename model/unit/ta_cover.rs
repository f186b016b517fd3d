use gpucosim_model::cover::names;
use gpucosim_model::profile::Profile;
use gpucosim_model::ta::cover::*;

#[test]
fn profile_specific_bins_are_declared_only_where_they_exist() {
    let g9 = names::<Bin>(Profile::Gfx9);
    let g11 = names::<Bin>(Profile::Gfx11);
    assert!(g9.contains(&"range.gfx9.stride0.in") && !g11.contains(&"range.gfx9.stride0.in"));
    assert!(g11.contains(&"range.oob3.linear.out") && !g9.contains(&"range.oob0.in"));
    assert!(g11.contains(&"wave.32") && !g9.contains(&"wave.32"));
}
