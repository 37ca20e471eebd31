func.func @a() { return }
#map = affine_map<(d0) -> (d0 + 1)>
func.func @b() attributes {m = #map} {
  return
}
