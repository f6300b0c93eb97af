#!/usr/bin/env bash
# Fetches the development photo set for the watermark and perceptual-hash
# benchmarks from Debian's wallpaper packages into bench/images (not committed):
# photographs (landscapes, flowers, macro, night, water) from
# plasma-workspace-wallpapers and mate-backgrounds, plus renders, gradients,
# flat backgrounds and text-like artwork from the others.
# Usage: bench/fetch-images.sh [DIR]   (idempotent: a filled DIR is left alone)
set -euo pipefail
out=${1:-"$(cd "$(dirname "$0")" && pwd)/images"}
mkdir -p "$out"
have=$(find "$out" -maxdepth 1 -type f | wc -l)
if [ "$have" -ge 60 ]; then echo "fetch-images: $out already has $have images"; exit 0; fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pkgs=(plasma-workspace-wallpapers mate-backgrounds gnome-backgrounds sway-backgrounds ukui-wallpapers lomiri-wallpapers desktop-base)
if ! ( cd "$work" && apt-get download "${pkgs[@]}" >/dev/null 2>&1 ); then
  apt-get update -qq >/dev/null 2>&1 || true
  ( cd "$work" && apt-get download "${pkgs[@]}" >/dev/null )
fi
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/x"; done

copy() { # copy SRC NAME
  local dst="$out/$2"
  [ -e "$dst" ] || cp "$1" "$dst"
}

# Plasma: one image per wallpaper, alternating between the largest size of at
# most 12 MP and the smallest of at least 0.3 MP, for a spread of sizes.
i=0
for dir in "$work"/x/usr/share/wallpapers/*/contents/images; do
  name=$(basename "$(dirname "$(dirname "$dir")")")
  best=""; bestpx=0; small=""; smallpx=999999999
  for f in "$dir"/*; do
    case "$f" in *.jpg|*.jpeg|*.png|*.webp) ;; *) continue ;; esac
    dims=$(basename "$f" | sed -E 's/^([0-9]+)x([0-9]+)\..*/\1 \2/')
    set -- $dims; [ $# -eq 2 ] || continue
    px=$(( $1 * $2 ))
    if [ "$px" -le 12000000 ] && [ "$px" -gt "$bestpx" ]; then best=$f; bestpx=$px; fi
    if [ "$px" -ge 300000 ] && [ "$px" -lt "$smallpx" ]; then small=$f; smallpx=$px; fi
  done
  pick=$best; [ $((i % 2)) -eq 1 ] && [ -n "$small" ] && pick=$small
  [ -n "$pick" ] && copy "$pick" "plasma__${name}__$(basename "$pick")"
  i=$((i + 1))
done

# Everything else: raster images over 40 KB, named after their folder.
find "$work/x/usr/share/backgrounds" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.webp' \) -size +40k |
while read -r f; do
  rel=${f#"$work"/x/usr/share/backgrounds/}
  copy "$f" "bg__$(echo "$rel" | tr '/ ' '__')"
done
echo "fetch-images: $(find "$out" -maxdepth 1 -type f | wc -l) images in $out"
