// random (a secret password), local (a data source and a provider function) and sdkv2test (an
// explicit provider with configuration, a resource updated in place or replaced, a data
// source and the provider's terraformConfig method).
import * as pulumi from "@pulumi/pulumi";
import * as local from "@pulumi/local";
import * as random from "@pulumi/random";
import * as sdkv2test from "@pulumi/sdkv2test";

const config = new pulumi.Config();
const dir = config.require("dir");
// Changing it updates the thing in place; changing thingName replaces it.
const description = config.get("description") ?? "first";
const thingName = config.get("thingName") ?? "alpha";

const password = new random.Password("password", { length: 20, special: false });

const input = local.getFileOutput({ filename: `${dir}/input.txt` });
const dirExists = local.direxistsOutput(dir);

const store = new sdkv2test.Provider("store", { dir: `${dir}/store` });
const thing = new sdkv2test.Thing(
    "thing",
    {
        name: thingName,
        description: description,
        secret: "hunter2",
        tags: { team: "e2e" },
        settings: { level: 3 },
    },
    { provider: store },
);
// By id, which is unknown until the thing exists, so a preview never reads a missing thing.
const found = sdkv2test.getThingOutput({ name: thing.id }, { provider: store });

export const passwordResult = password.result;
export const inputContent = input.content;
export const inputSha256 = input.contentSha256;
export const dirExistsResult = dirExists;
export const thingId = thing.id;
export const thingDescription = thing.description;
export const thingFingerprint = thing.fingerprint;
export const thingSecret = thing.secret;
export const foundDescription = found.description;
export const storeConfig = store.terraformConfig();
