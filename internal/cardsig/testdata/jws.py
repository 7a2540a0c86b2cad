#!/usr/bin/env python3
"""An independent signer and verifier of A2A agent cards (JWS over the JCS form, A2A §8.4), for the tests.

It shares no code with package cardsig: canonical JSON is Python's sorted, compact json.dumps (the RFC 8785 form for
cards whose numbers are integers), signatures come from the `cryptography` package.

  jws.py sign KEY.pem KID [JKU] < card.json > signed.json
  jws.py verify PUB.pem < signed.json        exit 0 when a signature verifies, 1 when none does
  jws.py input < signed.json                 the JWS signing input of the first signature (for openssl dgst)
  jws.py jwks PUB.pem KID > jwks.json         the public key as a JWKS (RFC 7517) with that kid
"""
import base64, json, sys
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils


def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def payload(card):
    card = {k: v for k, v in card.items() if k != "signatures"}
    return json.dumps(card, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(keyfile, kid, jku):
    key = serialization.load_pem_private_key(open(keyfile, "rb").read(), None)
    card = json.load(sys.stdin)
    if isinstance(key, rsa.RSAPrivateKey):
        alg = "RS256"
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        alg = "ES256"
    else:
        alg = "EdDSA"
    hdr = {"alg": alg, "typ": "JOSE", "kid": kid}
    if jku:
        hdr["jku"] = jku
    prot = b64(json.dumps(hdr).encode())
    data = (prot + "." + b64(payload(card))).encode()
    if alg == "RS256":
        sig = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "ES256":
        r, s = utils.decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        sig = key.sign(data)
    card["signatures"] = [{"protected": prot, "signature": b64(sig)}]
    json.dump(card, sys.stdout)


def verify(pubfile):
    pub = serialization.load_pem_public_key(open(pubfile, "rb").read())
    card = json.load(sys.stdin)
    for s in card.get("signatures") or []:
        hdr = json.loads(unb64(s["protected"]))
        data = (s["protected"] + "." + b64(payload(card))).encode()
        sig = unb64(s["signature"])
        try:
            if hdr["alg"] == "RS256":
                pub.verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
            elif hdr["alg"] == "ES256":
                der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
                pub.verify(der, data, ec.ECDSA(hashes.SHA256()))
            elif hdr["alg"] == "EdDSA":
                pub.verify(sig, data)
            else:
                continue
        except Exception:
            continue
        print("verified", hdr.get("kid"))
        return 0
    print("not verified")
    return 1


def signing_input():
    card = json.load(sys.stdin)
    s = card["signatures"][0]
    sys.stdout.write(s["protected"] + "." + b64(payload(card)))
    open(sys.argv[2], "wb").write(unb64(s["signature"]))


def jwks(pubfile, kid):
    pub = serialization.load_pem_public_key(open(pubfile, "rb").read())
    n2b = lambda n, size: n.to_bytes(size, "big")
    if isinstance(pub, rsa.RSAPublicKey):
        nums = pub.public_numbers()
        jwk = {"kty": "RSA", "n": b64(n2b(nums.n, (nums.n.bit_length() + 7) // 8)), "e": b64(n2b(nums.e, (nums.e.bit_length() + 7) // 8))}
    elif isinstance(pub, ec.EllipticCurvePublicKey):
        nums = pub.public_numbers()
        jwk = {"kty": "EC", "crv": "P-256", "x": b64(n2b(nums.x, 32)), "y": b64(n2b(nums.y, 32))}
    else:
        raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(raw)}
    jwk.update({"kid": kid, "use": "sig"})
    json.dump({"keys": [jwk]}, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "sign":
        sign(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
    elif sys.argv[1] == "verify":
        sys.exit(verify(sys.argv[2]))
    elif sys.argv[1] == "input":
        signing_input()
    elif sys.argv[1] == "jwks":
        jwks(sys.argv[2], sys.argv[3])
