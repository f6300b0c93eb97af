package server

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/origin/internal/demo"
)

func TestZZDecodeOptions(t *testing.T) {
	files := map[string][]byte{"/a.html": []byte(`<!DOCTYPE html><html><body>x</body></html>`)}
	files["/12.jpg"] = demo.Scene(5, 4243, 2828)
	t.Logf("12MP file %d bytes", len(files["/12.jpg"]))
	page := servePage(t, files)
	b := newBrowser(t)
	if err := chromedp.Run(b.ctx, chromedp.Navigate(page+"/a.html")); err != nil {
		t.Fatal(err)
	}
	js := `(async () => {
  const buf = new Uint8Array(await (await fetch('/12.jpg')).arrayBuffer());
  const blob = new Blob([buf], {type: 'image/jpeg'});
  const out = {};
  const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  const time = async (name, fn) => { const ms = []; for (let i = 0; i < 5; i++) { const t = performance.now(); await fn(); ms.push(performance.now() - t); } out[name] = med(ms); };
  const w = 1061, h = 707;
  await time('sha-subtle', () => crypto.subtle.digest('SHA-256', buf));
  await time('full', async () => { const b = await createImageBitmap(blob); b.close(); });
  for (const q of ['pixelated', 'low', 'medium', 'high']) {
    await time('resize-' + q, async () => { const b = await createImageBitmap(blob, {resizeWidth: w, resizeHeight: h, resizeQuality: q, imageOrientation: 'from-image', colorSpaceConversion: 'none', premultiplyAlpha: 'none'}); b.close(); });
    await time('resize+getImageData-' + q, async () => { const b = await createImageBitmap(blob, {resizeWidth: w, resizeHeight: h, resizeQuality: q, imageOrientation: 'from-image', colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
      const g = new OffscreenCanvas(w, h).getContext('2d', {willReadFrequently: true}); g.drawImage(b, 0, 0); g.getImageData(0, 0, w, h); b.close(); });
  }
  await time('resize-medium-defaults', async () => { const b = await createImageBitmap(blob, {resizeWidth: w, resizeHeight: h, resizeQuality: 'medium'}); b.close(); });
  await time('full+drawImage-scaled', async () => { const b = await createImageBitmap(blob, {colorSpaceConversion: 'none'});
      const g = new OffscreenCanvas(w, h).getContext('2d', {willReadFrequently: true}); g.imageSmoothingQuality = 'medium'; g.drawImage(b, 0, 0, w, h); g.getImageData(0, 0, w, h); b.close(); });
  if (typeof ImageDecoder === 'function') {
    await time('imagedecoder', async () => { const d = new ImageDecoder({data: buf, type: 'image/jpeg'}); const r = await d.decode(); out.vfFormat = r.image.format; out.vfSize = r.image.codedWidth + 'x' + r.image.codedHeight; r.image.close(); d.close(); });
  }
  return out;
})()`
	var res map[string]any
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(js, &res, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err, b.consoleLog())
	}
	for k, v := range res {
		t.Logf("%s: %v", k, v)
	}
	fmt.Println()
}
