// The independent C2PA reader the Go tests drive: @trustnxt/c2pa-ts, a
// pure TypeScript implementation maintained apart from this project.
//
//   node reader.mjs <node_modules dir> read <file>
//       prints {format, manifests, activeManifest, validation} as JSON
//   node reader.mjs <node_modules dir> sign <in> <out> <leaf.pem> <key.pk8.pem> [<ca.pem>]
//       writes <out>: <in> with a third-party manifest (v2 claim, ES256,
//       c2pa.created by a digital capture) made by c2pa-ts itself
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, command, ...args] = process.argv.slice(2);
const load = p => import(pathToFileURL(path.join(modules, '@trustnxt', 'c2pa-ts', 'dist', p, 'index.js')).href);
const { JPEG, PNG } = await load('asset');
const { SuperBox } = await load('jumbf');
const manifestMod = await load('manifest');
const { ManifestStore, ValidationResult } = manifestMod;
const cose = await load('cose');
const pkg = JSON.parse(await fs.readFile(path.join(modules, '@trustnxt', 'c2pa-ts', 'package.json'), 'utf8'));

function openAsset(buf) {
    if (JPEG.canRead(buf)) return new JPEG(buf);
    if (PNG.canRead(buf)) return new PNG(buf);
    throw new Error('unsupported file format');
}

// plain turns CBOR-decoded values into JSON: byte strings become hex.
function plain(v) {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
    if (Array.isArray(v)) return v.map(plain);
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
    if (v instanceof Date) return v.toISOString();
    if (v && typeof v === 'object') {
        const o = {};
        for (const [k, x] of Object.entries(v)) if (k !== 'sourceBox' && k !== 'uuid') o[k] = plain(x);
        return o;
    }
    return v;
}

async function read(file) {
    const buf = new Uint8Array(await fs.readFile(file));
    const asset = openAsset(buf);
    const out = { reader: `${pkg.name}@${pkg.version}`, format: asset.mimeType, manifests: [] };
    const jumbf = asset.getManifestJUMBF();
    if (!jumbf) {
        out.validation = null;
        return out;
    }
    let result;
    try {
        const store = ManifestStore.read(SuperBox.fromBuffer(jumbf));
        for (const m of store.manifests) {
            out.manifests.push({
                label: m.label,
                claimVersion: m.claim?.version,
                claimGenerator: m.claim?.claimGeneratorName,
                title: m.claim?.title,
                format: m.claim?.format,
                instanceID: m.claim?.instanceID,
                signer: m.signature?.signatureData?.certificate?.subject,
                issuer: m.signature?.signatureData?.certificate?.issuer,
                assertions: (m.assertions?.assertions ?? []).map(a => ({
                    label: a.fullLabel,
                    content: plain(a.sourceBox?.contentBoxes?.[0]?.content),
                })),
            });
        }
        out.activeManifest = store.getActiveManifest()?.label;
        result = await store.validate(asset);
    } catch (e) {
        result = ValidationResult.fromError(e);
    }
    out.validation = {
        isValid: result.isValid,
        statusEntries: result.statusEntries.map(e => ({
            code: e.code,
            success: e.success,
            url: typeof e.url === 'string' ? e.url : undefined,
            explanation: e.explanation,
        })),
    };
    return out;
}

async function sign(input, output, leafPEM, keyPEM, caPEM) {
    const { X509Certificate } = await import(pathToFileURL(path.join(modules, '@peculiar', 'x509', 'build', 'x509.es.js')).href);
    const der = pem => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
    const leaf = new X509Certificate(der(await fs.readFile(leafPEM, 'utf8')));
    const chain = caPEM ? [new X509Certificate(der(await fs.readFile(caPEM, 'utf8')))] : [];
    const key = der(await fs.readFile(keyPEM, 'utf8'));
    const signer = new cose.LocalSigner(key, -7 /* ES256 */, leaf, chain);

    const asset = openAsset(new Uint8Array(await fs.readFile(input)));
    const store = new ManifestStore();
    const manifest = store.createManifest({
        claimVersion: manifestMod.ClaimVersion.V2,
        assetFormat: asset.mimeType,
        instanceID: 'xmp:iid:00000000-0000-4000-8000-00000000c0de',
        defaultHashAlgorithm: 'SHA-256',
        signer,
    });
    manifest.claim.title = 'camera capture';
    const dataHash = manifestMod.DataHashAssertion.create('SHA-256');
    manifest.addAssertion(dataHash);
    const actions = new manifestMod.ActionAssertion();
    actions.actions.push({
        action: 'c2pa.created',
        digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture',
        softwareAgent: { name: 'Third Party Camera', version: '1.0' },
    });
    manifest.addAssertion(actions);

    await asset.ensureManifestSpace(store.measureSize());
    await dataHash.updateWithAsset(asset);
    await manifest.sign(signer);
    await asset.writeManifestJUMBF(store.getBytes());
    await fs.writeFile(output, await asset.getDataRange());
    return { label: manifest.label };
}

try {
    let result;
    if (command === 'read') result = await read(args[0]);
    else if (command === 'sign') result = await sign(...args);
    else throw new Error(`unknown command ${command}`);
    process.stdout.write(JSON.stringify(result, null, 1) + '\n');
} catch (e) {
    process.stderr.write(String(e?.stack ?? e) + '\n');
    process.exit(1);
}
