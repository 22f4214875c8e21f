/**
 * The words of the generated chat corpus, most common first within each list (the generator
 * draws them with a Zipf-like skew, so the order matters). Written for the benchmark: everyday
 * and working vocabulary of people and agents who talk to each other.
 */
const words = (s: string): readonly string[] => s.trim().split(/\s+/);

export const NOUNS = words(`
  time day thing work way week people team job home morning night year plan idea
  today tomorrow weekend family friend kids house place problem question issue update
  file test build change report meeting call list note data server release review branch
  fix deploy bug log script task ticket doc draft version config page user result
  project number part minute hour month point side car food dinner lunch coffee
  school class game book movie music show trip city room door road water phone email
  picture photo message chat group support dog cat garden kitchen weather rain sun snow
  beach park lake river mountain trail bike run walk party birthday gift store market
  shop street office desk screen laptop keyboard chair window table bed couch
  money price bill rent budget plan goal habit health doctor hospital appointment
  sister brother mom dad parents husband wife partner son daughter grandma grandpa
  cousin neighbor boss colleague client customer manager intern teacher student
  painting drawing pottery guitar piano violin song concert festival museum gallery
  recipe cake bread soup pasta salad pizza cookie tea wine beer breakfast
  dashboard metric alert incident outage rollback migration schema index query cache
  queue worker job pipeline backup disk memory cpu latency throughput timeout retry
  endpoint request response token key secret permission role account session
  feature design spec roadmap sprint standup retro demo launch customer feedback
  garden flower tree plant seed tomato basil rose lawn fence
  camping tent fire hike summit view sunset sunrise forest island castle
  shelter volunteer charity community council election vote mayor
  adoption agency studio dance yoga gym marathon race team coach
  novel poem story chapter author library
  vacation flight hotel airport train ticket passport luggage map
  puppy kitten vet walk leash toy bowl
  painting canvas brush color sketch mural exhibit
  dataset model prompt embedding vector benchmark baseline experiment paper
  thread inbox receipt ack memory atom search
  invoice contract vendor payment refund order shipment warehouse
  apartment lease roof heater stove fridge washer
  knee back shoulder headache cold flu fever
  storm flood heatwave wind fog
  hobby skill lesson course workshop certificate degree
  surprise memory moment feeling dream fear hope
  clothing art photo castle
`);

export const VERBS = words(`
  go get make see know think take come want look use find give tell work call try ask
  need feel leave put mean keep let begin seem help talk turn start show hear play run
  move like live believe hold bring happen write sit stand lose pay meet include continue
  set learn change lead understand watch follow stop create speak read spend grow open
  walk win offer remember love consider appear buy wait serve send expect build stay fall
  cut reach kill remain suggest raise pass sell require report decide pull check fix
  deploy merge push review test restart rerun ship land revert debug profile measure
  paint draw bake cook hike swim travel visit clean plant volunteer practice finish enjoy
  share post upload download install update configure schedule cancel book plan
  celebrate relax rest sleep dance sing laugh cry worry hope wonder miss
`);

export const ADJECTIVES = words(`
  good new great little old big high different small large next early young important
  few public bad same able last long right hard real best better sure free full busy
  happy nice fun cool amazing awesome beautiful quick slow late ready easy tough weird
  funny sad tired excited proud glad sorry lucky calm quiet loud warm cold hot sunny
  fresh clean broken stuck flaky stable fast green red blue yellow dark bright huge tiny
  local remote urgent final nightly weekly daily monthly manual automatic empty heavy
  strange perfect terrible wonderful lovely crazy wild gentle brave kind honest
  careful curious grateful nervous relaxed sore healthy sick homeless
  mesmerized
`);

export const ADVERBS = words(`
  really just so very actually still already pretty probably maybe definitely almost
  finally honestly totally quickly slowly again soon later together usually sometimes
  always never often today tonight yesterday
`);

export const PLACES = words(`
  home work office school park beach lake city downtown airport station gym store
  library museum hospital cafe restaurant garden studio shelter mountains forest island
  Paris Berlin Lisbon Tokyo Seattle Boston Denver Austin Chicago Madrid Rome Oslo
  Nairobi Lagos Lima Toronto Sydney Dublin Prague Vienna Kyoto Seoul
`);

export const ACTIVITIES = words(`
  hiking camping painting running swimming cooking baking reading writing gardening
  dancing climbing cycling fishing knitting pottery photography skating surfing yoga
  chess singing drumming sailing skiing volunteering
`);

export const TECH = words(`
  api cli sdk ci cd sql json yaml http grpc tls dns cdn vm gpu db wal fts orm
  kubernetes docker nginx postgres sqlite redis kafka terraform ansible grafana
  prometheus node python rust golang typescript react webpack eslint vitest
`);

/** Short messages people send on their own. */
export const REACTIONS = [
  'ok', 'okay', 'thanks!', 'thank you!', 'sounds good', 'got it', 'will do', 'on it',
  'yes', 'no', 'sure', 'nice!', 'lol', 'haha that is great', 'love it', 'great, thanks',
  'perfect', 'agreed', 'done', 'ack', 'same here', 'makes sense', 'good call',
  'let me check', 'one sec', 'see you then', 'congrats!', 'oh no', 'wow', 'you know it',
  'I think so', 'not yet', 'working on it', 'fixed', 'shipped', 'good morning!',
  'good night', 'talk soon', 'so proud of you', 'that is great', 'really good', 'miss you',
] as const; // prettier-ignore

export const FIRST_NAMES = words(`
  Caroline Melanie Jon Gina John Maria Aaliyah Abel Ada Adrian Aisha Alan Alba Alec Alma
  Amir Ana Anders Anya Ari Arlo Asha Aurora Ayo Bea Ben Bianca Bo Bruno Caleb Camila Carlos
  Cato Chen Chiara Cleo Dante Daria David Dmitri Dora Eli Elif Elsa Emeka Emil Enzo Esme Ezra
  Farah Felix Fiona Gabe Greta Hana Hugo Ida Ilya Ines Ivan Jada Jamal Jana Jonas Joy Kai
  Kamala Kenji Kofi Lara Leo Lena Liam Lina Luca Luz Maeve Malik Mara Marco Mateo Maya Mei
  Milo Nadia Nia Nico Nina Noor Omar Oskar Paz Pia Priya Quinn Rafael Rani Rosa Ruth Sami
  Sara Sven Tala Theo Tomas Uma Vera Wen Yara Yusuf Zane Zoe
`);

export const SURNAMES = words(`
  Smith Garcia Chen Okafor Novak Silva Kim Rossi Müller Dubois Tanaka Haddad Ivanova
  Kowalski Nguyen Patel Andersen Costa Schmidt Moreau Yilmaz Santos Larsen Mendes
`);

export const MONTHS = words(
  'January February March April May June July August September October November December',
);
export const WEEKDAYS = words('Monday Tuesday Wednesday Thursday Friday Saturday Sunday');
